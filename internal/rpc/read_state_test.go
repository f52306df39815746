package rpc

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/files"
	"steerable.dev/sidecar/internal/readstate"
	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

func TestReadStateSeedAndGet(t *testing.T) {
	store := readstate.NewStore()
	h := startHost(t, hostOpts{readState: store})
	var got protocol.ReadStateGetResult
	h.call(1, protocol.MethodReadStateGet, "").result(t, &got)
	if got.State == nil || len(got.State) != 0 {
		t.Errorf("empty state = %#v, want {}", got.State)
	}
	v1, v2 := strings.Repeat("a", 64), strings.Repeat("b", 64)
	params := fmt.Sprintf(`{"state":{"/w/x.txt":%q},"messages":[
		{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"read_file","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"c1","content":"{\"success\":true,\"data\":{\"path\":\"/w/a.txt\",\"version\":\"%s\",\"partial\":true}}"},
		{"role":"tool","name":"edit_file","content":"[spilled to /tmp/out.json]"},
		{"role":"user","content":"hello"}]}`, v1, v2)
	params = strings.NewReplacer("\n", "", "\t", "").Replace(params) // one frame, one line
	var seeded protocol.ReadStateSeedResult
	h.call(2, protocol.MethodReadStateSeed, params).result(t, &seeded)
	if diff := cmp.Diff(protocol.ReadStateSeedResult{Seeded: 2, Skipped: 1}, seeded); diff != "" {
		t.Errorf("seed (-want +got):\n%s", diff)
	}
	h.call(3, protocol.MethodReadStateGet, "").result(t, &got)
	if diff := cmp.Diff(map[string]string{"/w/x.txt": v1, "/w/a.txt": v2}, got.State); diff != "" {
		t.Errorf("state (-want +got):\n%s", diff)
	}
	if e, _ := store.Get("/w/a.txt"); !e.Partial {
		t.Error("a partial read in the record stays partial")
	}
	h.call(4, protocol.MethodReadStateSeed, `{"state":{"/w/x":"nothex"}}`).wantError(t, protocol.CodeInvalidParams, "")
	h.call(5, protocol.MethodReadStateSeed, fmt.Sprintf(`{"state":{"rel/x":%q}}`, v1)).wantError(t, protocol.CodeInvalidParams, "not an absolute path")
	h.call(6, protocol.MethodReadStateSeed, `{"bogus":1}`).wantError(t, protocol.CodeInvalidParams, "bogus")
}

func TestReadStateWithoutFileTools(t *testing.T) {
	h := startHost(t, hostOpts{})
	h.call(1, protocol.MethodReadStateGet, "").wantError(t, protocol.CodePolicyDenied, "no file tools")
	h.call(2, protocol.MethodReadStateSeed, `{}`).wantError(t, protocol.CodePolicyDenied, "no file tools")
}

// TestConcurrentWriteFileOverTheWire: writers racing through tool.invoke on
// one file with the same expectedVersion: exactly one wins, the file holds
// exactly its content.
func TestConcurrentWriteFileOverTheWire(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	os.WriteFile(dir+"/f.txt", []byte("v0\n"), 0o644)
	ws, err := files.Open(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	store := readstate.NewStore()
	h := startHost(t, hostOpts{readState: store, opts: Options{MaxFrameBytes: 8 << 20}, tools: func(host tools.Host) []tools.Tool {
		return tools.Builtins(tools.Deps{Host: host, Log: zerolog.Nop(), Files: ws, ReadState: store, RequireReadBeforeWrite: true, FileMaxBytes: 1 << 20})
	}})
	v0 := readstate.Of([]byte("v0\n"))
	const n = 8
	content := func(i int) string { return strings.Repeat(fmt.Sprintf("%d", i), 200_000) }
	for i := range n {
		h.sendf(`{"jsonrpc":"2.0","id":%d,"method":"tool.invoke","params":{"name":"write_file","arguments":{"path":"f.txt","content":%q,"expectedVersion":%q}}}`, i+1, content(i), v0)
	}
	winner := -1
	for i := range n {
		var res protocol.ToolResult
		h.await(fmt.Sprint(i+1)).result(t, &res)
		if res.Success {
			if winner >= 0 {
				t.Fatalf("writers %d and %d both passed the same expectedVersion", winner, i)
			}
			winner = i
		} else if res.Data["code"] != "conflict" {
			t.Errorf("loser %d: %+v", i, res)
		}
	}
	if got, _ := os.ReadFile(dir + "/f.txt"); winner < 0 || string(got) != content(winner) {
		t.Fatalf("winner %d; the file holds %d bytes of someone else's (or mixed) content", winner, len(got))
	}
}
