package mcpserver

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// nextRevisionInit is the initialize of a client of the 2026-07-28
// revision that still declares roots and elicitation: the server must not
// send it roots/list or elicitation/create (its SDK would refuse them).
const nextRevisionInit = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2026-07-28",` +
	`"capabilities":{"roots":{"listChanged":true},"elicitation":{}},"clientInfo":{"name":"next","version":"1"}}}`

// TestNextRevisionClientWorksWithoutRoots: a client of the 2026-07-28
// revision is answered with the latest revision the server speaks, its
// workspace is the default (configuration or the directory it started the
// server in), never a roots/list; it gets no log message nor elicitation;
// and its tool calls work there.
func TestNextRevisionClientWorksWithoutRoots(t *testing.T) {
	r, h := newRaw(t, setup{open: true}, time.Second)
	writeFile(t, filepath.Join(h.dir, "here.txt"), "in the default workspace\n")
	r.send(nextRevisionInit)
	var init struct {
		Result struct {
			ProtocolVersion string
			Capabilities    map[string]json.RawMessage
		}
	}
	if f := r.reply(`"init"`); json.Unmarshal(f["result"], &init.Result) != nil {
		t.Fatalf("initialize: %s", f["error"])
	}
	if want := slices.Max(handshakeVersions()); init.Result.ProtocolVersion != want || want >= nextRevision {
		t.Errorf("negotiated %q, want %q (before %s)", init.Result.ProtocolVersion, want, nextRevision)
	}
	r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, `{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	r.reply(`"p"`)
	if got := awaitRoot(t, h); got != "" {
		t.Errorf("opened %q, want the default workspace (\"\")", got)
	}
	r.send(`{"jsonrpc":"2.0","id":"list","method":"tools/list"}`)
	var list struct{ Tools []struct{ Name string } }
	if err := json.Unmarshal(r.reply(`"list"`)["result"], &list); err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(list.Tools, func(tl struct{ Name string }) bool { return tl.Name == "ask_user" }) {
		t.Error("ask_user listed for a client that cannot be sent elicitation/create")
	}
	r.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"read","method":"tools/call","params":{"name":"read_file","arguments":{"path":%q}}}`, "here.txt"))
	var res mcp.CallToolResult
	if err := json.Unmarshal(r.reply(`"read"`)["result"], &res); err != nil || res.IsError || !strings.Contains(fmt.Sprint(res.StructuredContent), "in the default workspace") {
		t.Errorf("read_file in the default workspace: %v %+v", err, res)
	}
	if f := r.await(0, func(f map[string]json.RawMessage) bool { return f["method"] != nil && f["id"] != nil }); f != nil {
		t.Errorf("the server sent the client a request: %s", f["method"])
	}
	if f := r.await(0, func(f map[string]json.RawMessage) bool { return string(f["method"]) == `"notifications/message"` }); f != nil {
		t.Errorf("the server sent an MCP log message: %s", f["params"])
	}
}
