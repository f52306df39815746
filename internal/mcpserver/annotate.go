package mcpserver

import (
	"encoding/json"
	"strings"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"steerable.dev/sidecar/protocol"
)

// Keys of a listed tool's _meta: the sidecar's own classification, for
// clients that want more than the hints.
const (
	metaMode   = "steerable.dev/mode"
	metaSource = "steerable.dev/source"
)

// toolOf is the MCP form of a descriptor; false when its parameters schema
// is not an object schema, which MCP requires (a client validating the list
// would otherwise reject every tool). A built-in tool carries the
// outputSchema of its structuredContent in the results shape.
func toolOf(d protocol.ToolDescriptor, localNetwork bool, results string) (*mcp.Tool, bool) {
	schema, ok := inputSchema(d.Parameters)
	if !ok {
		return nil, false
	}
	title := titleOf(d)
	t := &mcp.Tool{
		Name:        d.Name,
		Title:       title,
		Description: describe(d),
		InputSchema: schema,
		Annotations: annotations(d, title, localNetwork),
		Meta:        mcp.Meta{metaMode: string(d.Mode), metaSource: d.Source},
	}
	if out := outputSchema(d, results); out != nil {
		t.OutputSchema = out
	}
	return t, true
}

// oneShotNote says once, in read_file's description, how a client that
// opens a session per call (the Inspector's CLI, a script) passes the
// read-before-write gate, which the writers' descriptions only name: an
// MCP session's read state ends with the session.
const oneShotNote = " Writers refuse an existing file this MCP session has not read: a client that opens a new session " +
	"for each call passes the version read_file returned as expectedVersion to write_file, edit_file or notebook_edit; " +
	"apply_patch needs the read in its own session (a trusted script may instead run the server with " +
	"STEERABLE_REQUIRE_READ_BEFORE_WRITE=0)."

// describe is the description a listed tool carries: the registry's, and
// for the built-in read_file the one-shot note.
func describe(d protocol.ToolDescriptor) string {
	if d.Name == "read_file" && d.Source == protocol.SourceBuiltin {
		return d.Description + oneShotNote
	}
	return d.Description
}

// inputSchema returns raw with "type":"object" made explicit when it is
// missing (a host's {"properties": …}); false for a schema of another type
// or one that is not a JSON object.
func inputSchema(raw json.RawMessage) (json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return nil, false
	}
	t, ok := m["type"]
	if ok {
		return raw, string(t) == `"object"`
	}
	m["type"] = json.RawMessage(`"object"`)
	b, err := json.Marshal(m)
	return b, err == nil
}

// annotations derives MCP's hints from the mode (SPEC §3), and states each
// one explicitly: MCP's defaults (destructiveHint and openWorldHint true)
// are the fail-safe reading of a tool that says nothing.
//
//	read         readOnlyHint; openWorldHint only for the web tools
//	safe_write   destructiveHint false: writes are additive or CAS-guarded
//	destructive  destructiveHint
//	local        destructiveHint (a command can delete); openWorldHint when
//	             sandboxed commands may use the network
//	external     destructiveHint, openWorldHint
//
// idempotentHint is never set: safe_write covers create_/add_ tools, and
// even edit_file applies an edit twice when newText contains oldText.
func annotations(d protocol.ToolDescriptor, title string, localNetwork bool) *mcp.ToolAnnotations {
	a := &mcp.ToolAnnotations{Title: title}
	open := false
	switch d.Mode {
	case protocol.ModeRead:
		a.ReadOnlyHint = true
		open = reachesNetwork(d)
	case protocol.ModeSafeWrite:
		a.DestructiveHint = boolPtr(false)
	case protocol.ModeLocal:
		a.DestructiveHint = boolPtr(true)
		open = localNetwork
	case protocol.ModeExternal:
		a.DestructiveHint = boolPtr(true)
		open = true
	default: // destructive, and any mode unknown to this build
		a.DestructiveHint = boolPtr(true)
		open = d.Mode != protocol.ModeDestructive
	}
	a.OpenWorldHint = boolPtr(open)
	return a
}

func boolPtr(b bool) *bool { return &b }

// reachesNetwork names the read-mode built-ins that talk to the internet:
// the mode says they change nothing, not that their world is closed.
func reachesNetwork(d protocol.ToolDescriptor) bool {
	return d.Source == protocol.SourceBuiltin && (d.Name == "web_fetch" || d.Name == "web_search")
}

// builtinTitles are the display names of the built-in tools.
var builtinTitles = map[string]string{
	"read_file":     "Read file",
	"write_file":    "Write file",
	"edit_file":     "Edit file",
	"apply_patch":   "Apply patch",
	"notebook_edit": "Edit notebook cell",
	"todo_write":    "Update the todo list",
	"grep":          "Search file contents",
	"glob":          "Find files by pattern",
	"bash":          "Run shell command (sandboxed)",
	"bash_session":  "Start a shell session (sandboxed)",
	"write_stdin":   "Write to a shell session",
	"web_fetch":     "Fetch web page",
	"web_search":    "Search the web",
	"tool_search":   "Find more tools",
	"ask_user":      "Ask the user",
	"run_code":      "Run Python code (sandboxed)",
}

// titleOf is a tool's display name: the built-ins' own, else the name in
// words ("create_pull_request", "createPullRequest" → "Create pull request").
func titleOf(d protocol.ToolDescriptor) string {
	if t, ok := builtinTitles[d.Name]; ok && d.Source == protocol.SourceBuiltin {
		return t
	}
	return humanize(d.Name)
}

func humanize(name string) string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(name)
	for i, r := range rs {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ':' || r == ' ':
			flush()
			continue
		case unicode.IsUpper(r) && len(cur) > 0 && (unicode.IsLower(cur[len(cur)-1]) ||
			(i+1 < len(rs) && unicode.IsLower(rs[i+1]))):
			flush()
		}
		cur = append(cur, r)
	}
	flush()
	if len(words) == 0 {
		return name
	}
	s := strings.Join(words, " ")
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}
