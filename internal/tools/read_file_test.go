package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steerable.dev/sidecar/internal/files"
	"steerable.dev/sidecar/internal/readstate"
	"steerable.dev/sidecar/protocol"
)

func TestReadFile(t *testing.T) {
	h := newFileHarness(t)
	content := "\ufeffline one\r\nline two\r\n"
	h.write("dir/a.txt", content)
	res := h.ok("read_file", map[string]any{"path": "dir/a.txt"})
	want := map[string]any{
		"path": h.abs("dir/a.txt"), "content": content, "version": version(content),
		"partial": false, "totalLines": json.Number("2"), "bytes": json.Number(fmt.Sprint(len(content))),
	}
	if diff := cmp.Diff(want, res.Data); diff != "" {
		t.Errorf("data (-want +got):\n%s", diff)
	}
	if e, ok := h.state.Get(h.abs("dir/a.txt")); !ok || e != (readstate.Entry{Version: version(content)}) {
		t.Errorf("state = %+v, %v", e, ok)
	}
}

func TestReadFileClipsAndRanges(t *testing.T) {
	h := newFileHarness(t)
	big := strings.Repeat("0123456789\n", 20_000) // 220,000 characters
	h.write("big.txt", big)
	res := h.ok("read_file", map[string]any{"path": "big.txt"})
	content := res.Data["content"].(string)
	if res.Data["partial"] != true || res.Data["version"] != version(big) || !strings.Contains(content, files.ClipMarker(120_000)) {
		t.Fatalf("clipped read: partial %v, marker missing or wrong version", res.Data["partial"])
	}
	if !strings.HasPrefix(content, big[:files.ClipHead]) || !strings.HasSuffix(content, big[len(big)-files.ClipTail:]) {
		t.Error("the clip does not keep the first 20,000 and the last 80,000 characters")
	}
	if e, _ := h.state.Get(h.abs("big.txt")); !e.Partial {
		t.Error("a clipped read must be recorded as partial")
	}

	h.write("small.txt", "1\n2\n3\n4\n")
	res = h.ok("read_file", map[string]any{"path": "small.txt", "offset": 2, "limit": 2})
	if diff := cmp.Diff(map[string]any{"path": h.abs("small.txt"), "content": "2\n3\n", "version": version("1\n2\n3\n4\n"),
		"partial": true, "totalLines": json.Number("4"), "bytes": json.Number("8")}, res.Data); diff != "" {
		t.Errorf("ranged read (-want +got):\n%s", diff)
	}
	if !strings.Contains(res.Message, "lines 2-3") {
		t.Errorf("message %q does not say which lines", res.Message)
	}
	h.refused("read_file", map[string]any{"path": "small.txt", "offset": 9}, "offset 9 is past the end")
	if res := h.ok("read_file", map[string]any{"path": "small.txt", "offset": 1, "limit": 100}); res.Data["partial"] != false {
		t.Error("a range covering every line is not partial")
	}
}

func TestReadFileRefusals(t *testing.T) {
	h := newFileHarness(t)
	outside := t.TempDir()
	os.WriteFile(outside+"/secret", []byte("s"), 0o644)
	os.Symlink(outside, h.abs("escape"))
	h.write("bin.dat", "PK\x03\x04\x00\x00binary")
	h.write("latin1.txt", "caf\xe9\n")
	os.Mkdir(h.abs("dir"), 0o755)
	mkfifo(h.abs("fifo"), 0o644)
	tests := []struct{ path, want string }{
		{"missing.txt", "does not exist; check the path"},
		{"dir", "is a directory"},
		{"fifo", "named pipe"},
		{"../outside.txt", "path escapes the workspace " + h.dir},
		{"/etc/passwd", "path escapes the workspace"},
		{"escape/secret", "path escapes the workspace"},
		{"a\x00b", "NUL byte"},
		{"", "the path is empty"},
		{" \t ", "the path is empty"},
		{"bin.dat", "is not a text file (application/zip, 12 bytes, NUL bytes)"},
		{"latin1.txt", "is not a text file (text/plain; charset=utf-8, 5 bytes, invalid UTF-8)"},
	}
	for _, tt := range tests {
		h.refused("read_file", map[string]any{"path": tt.path}, tt.want)
	}
	if res := h.call("read_file", map[string]any{"path": "bin.dat"}); !strings.Contains(res.Error, "bash") || res.Data["type"] != "application/zip" {
		t.Errorf("binary refusal = %q %v; want a pointer at bash and the type", res.Error, res.Data)
	}
	if n := h.state.Len(); n != 0 {
		t.Errorf("refused reads recorded %d versions", n)
	}
}

func TestReadFileStopsWhenCancelled(t *testing.T) {
	h := newFileHarness(t)
	h.write("f.txt", "x\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := h.d.Dispatch(ctx, Invocation{ToolCall: protocol.ToolCall{Name: "read_file", Arguments: json.RawMessage(`{"path":"f.txt"}`)}})
	if res.Success || !strings.Contains(res.Error, "context canceled") || h.state.Len() != 0 {
		t.Errorf("cancelled read = %+v, state %d entries", res, h.state.Len())
	}
}
