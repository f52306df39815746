package plugins

import (
	"bytes"
	"encoding/json"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// readAll drains a filter over input and returns its output lines.
func readAll(t testing.TB, input io.Reader, limit int) ([]string, *frameFilter, error) {
	f := newFrameFilter(input, limit)
	out, err := io.ReadAll(f)
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(out) == 0 {
		lines = nil
	}
	return lines, f, err
}

func TestFrameFilterPassesMessagesDropsNoise(t *testing.T) {
	in := strings.Join([]string{
		"Server listening on stdio",
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		"",
		`  {"jsonrpc":"2.0","method":"notifications/message","params":{}}  ` + "\r",
		`[{"jsonrpc":"2.0","id":2,"result":{}}]`,
		`{"not closed"`,
		`{"jsonrpc":"2.0","id":3,"result":{}}`, // no final newline
	}, "\n")
	lines, f, err := readAll(t, strings.NewReader(in), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","method":"notifications/message","params":{}}`,
		`[{"jsonrpc":"2.0","id":2,"result":{}}]`, `{"jsonrpc":"2.0","id":3,"result":{}}`}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if n, first := f.Noise(); n != 2 || first != "Server listening on stdio" {
		t.Errorf("noise %d %q", n, first)
	}
}

// bigLine streams one line of n bytes without holding it.
func bigLine(head string, n int64, tail string) io.Reader {
	return io.MultiReader(strings.NewReader(head), io.LimitReader(repeatByte('z'), n), strings.NewReader(tail+"\n"))
}

type repeatByte byte

func (r repeatByte) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

func TestFrameFilterOversized(t *testing.T) {
	const limit = 1 << 16
	next := strings.NewReader(`{"jsonrpc":"2.0","id":9,"result":{}}` + "\n")
	cases := []struct {
		name, head, tail string
		want             string // the synthesized reply's id, or "" for none
		broken           bool
	}{
		{"id first (Go, Python)", `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"`, `"}]}}`, "7", false},
		{"id last (TypeScript)", `{"result":{"content":[{"type":"text","text":"`, `"}]},"jsonrpc":"2.0","id":"abc"}`, `"abc"`, false},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"`, `"}}`, "", false},
		{"no id", `{"jsonrpc":"2.0","result":{"text":"`, `"}}`, "", true},
		{"a request of the server", `{"jsonrpc":"2.0","id":4,"method":"sampling/createMessage","params":{"x":"`, `"}}`, "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			next.Seek(0, io.SeekStart)
			lines, _, err := readAll(t, io.MultiReader(bigLine(c.head, 10<<20, c.tail), next), limit)
			if c.broken {
				if err == nil || !strings.Contains(err.Error(), "over the limit of 65536 (STEERABLE_PLUGIN_MAX_MESSAGE_BYTES)") {
					t.Fatalf("err %v, want the stream broken", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.want == "" {
				if len(lines) != 1 || !strings.Contains(lines[0], `"id":9`) {
					t.Errorf("an oversized notification is dropped, the next message passes: %q", lines)
				}
				return
			}
			var reply struct {
				ID    json.RawMessage
				Error struct {
					Code    int
					Message string
				}
			}
			if len(lines) != 2 || json.Unmarshal([]byte(lines[0]), &reply) != nil {
				t.Fatalf("lines %q", lines)
			}
			if string(reply.ID) != c.want || reply.Error.Code != codeTooLarge || !strings.Contains(reply.Error.Message, "reply of 10485") {
				t.Errorf("reply %+v", reply)
			}
		})
	}
}

// A 100 MB line through a 1 MiB limit allocates about the limit, not the
// line: it is skipped as it streams.
func TestFrameFilterMemoryIsBounded(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f := newFrameFilter(bigLine(`{"jsonrpc":"2.0","id":1,"result":"`, 100<<20, `"}`), 1<<20)
	if _, err := io.Copy(io.Discard, f); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 8<<20 {
		t.Errorf("reading a 100 MB line allocated %d bytes; a 1 MiB limit should keep it near that", got)
	}
}

func TestFrameFilterNotificationBudget(t *testing.T) {
	var in bytes.Buffer
	for range 5000 {
		in.WriteString(`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}` + "\n")
	}
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n")
	dropped := 0
	f := newFrameFilter(&in, 1<<20)
	f.onDrop = func(string) { dropped++ }
	stopped := f.budget.last
	f.budget.now = func() time.Time { return stopped } // "at once", however slow the machine reads
	out, _ := io.ReadAll(f)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if dropped < 4000 || len(lines) > 1000 {
		t.Errorf("%d dropped, %d passed of 5000 notifications sent at once", dropped, len(lines))
	}
	if !strings.Contains(lines[len(lines)-2], "list_changed") || !strings.Contains(lines[len(lines)-1], `"id":1`) {
		t.Errorf("list_changed and replies always pass: %q", lines[len(lines)-2:])
	}
}

// FuzzFrameFilter: whatever a server writes, every line handed to the
// client is one JSON value of at most the limit, and reading ends.
func FuzzFrameFilter(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + "garbage\n" + `[1,2]`,
		`{"id":"x","result":"` + strings.Repeat("a", 300) + `"}` + "\n",
		`{"result":"` + strings.Repeat("b", 300) + `","id":3}` + "\r\n{}",
		"\n\n\r\n", `{"method":"m"}`, "\xff\xfe{",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const limit = 256
		lines, _, _ := readAll(t, bytes.NewReader(data), limit)
		for _, l := range lines {
			if !json.Valid([]byte(l)) {
				t.Fatalf("passed a line that is not JSON: %q", l)
			}
			if len(l) > limit+1 && !strings.Contains(l, `"code":-32090`) {
				t.Fatalf("passed %d bytes over a %d limit", len(l), limit)
			}
		}
	})
}
