package tools

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestConcurrentWritersNeverInterleave: writers racing on one file through
// the dispatcher each write a large distinct content. With the same
// expectedVersion exactly one wins and the others get conflicts; without
// it (auto-CAS in one session) they serialise. Either way the file is
// always exactly one writer's content.
func TestConcurrentWritersNeverInterleave(t *testing.T) {
	const writers = 8
	content := func(i int) string { return strings.Repeat(fmt.Sprintf("writer %d\n", i), 50_000) }
	for _, explicit := range []bool{true, false} {
		t.Run(fmt.Sprintf("expectedVersion=%v", explicit), func(t *testing.T) {
			h := newFileHarness(t)
			h.write("shared.txt", "start\n")
			v0 := h.read("shared.txt")
			var wg sync.WaitGroup
			results := make([]bool, writers)
			for i := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					args := map[string]any{"path": "shared.txt", "content": content(i)}
					if explicit {
						args["expectedVersion"] = v0
					}
					results[i] = h.call("write_file", args).Success
				}()
			}
			wg.Wait()
			got := h.content("shared.txt")
			winners := 0
			var last int = -1
			for i, ok := range results {
				if ok {
					winners++
					if got == content(i) {
						last = i
					}
				}
			}
			if last < 0 {
				t.Fatalf("the file (%d bytes) is no single writer's content", len(got))
			}
			if explicit && winners != 1 {
				t.Errorf("%d writers passed the same expectedVersion; the CAS must let exactly one through", winners)
			}
			if !explicit && winners != writers {
				t.Errorf("%d of %d serialised writers succeeded", winners, writers)
			}
			if e, _ := h.state.Get(h.abs("shared.txt")); e.Version != version(got) {
				t.Error("the read state does not hold the version on disk")
			}
		})
	}
}

// TestConcurrentEditsAllApply: edits to different parts of one file,
// racing, all land: each re-reads the file under the lock, so none is lost.
func TestConcurrentEditsAllApply(t *testing.T) {
	h := newFileHarness(t)
	var b strings.Builder
	for i := range 20 {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	h.write("f.txt", b.String())
	h.read("f.txt")
	var wg sync.WaitGroup
	failed := make([]string, 20)
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			failed[i] = h.call("edit_file", map[string]any{"path": "f.txt", "edits": edits(fmt.Sprintf("line %d\n", i), fmt.Sprintf("LINE %d\n", i))}).Error
		}()
	}
	wg.Wait()
	for i, e := range failed {
		if e != "" {
			t.Errorf("edit %d failed: %s", i, e)
		}
	}
	if got := h.content("f.txt"); strings.Contains(got, "line ") {
		t.Errorf("an edit was lost:\n%s", got)
	}
}
