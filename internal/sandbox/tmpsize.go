package sandbox

import (
	"bytes"
	"context"
	"os/exec"
	"sync"
	"time"
)

// bwrap's private /tmp is a tmpfs, which the kernel sizes at half the RAM
// unless told otherwise, and whose pages no rlimit counts: without a
// memory cgroup a command could fill the machine's memory there. bwrap
// 0.8.0 added --size for the tmpfs that follows; older ones refuse the
// option and every command with it. Which this one is, its --help says
// (bwrap is taken from a system directory, never PATH): asked once per
// session, the first time a /tmp is to be capped.
type tmpSize struct {
	once sync.Once
	ok   bool
}

// supported reports whether the bwrap at path knows --size. A nil
// tmpSize (a Bwrap not made by NewBwrap) never caps.
func (t *tmpSize) supported(path string) bool {
	if t == nil {
		return false
	}
	t.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		out, _ := exec.CommandContext(ctx, path, "--help").Output()
		t.ok = bytes.Contains(out, []byte("--size BYTES"))
	})
	return t.ok
}
