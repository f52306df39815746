package mcptest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
)

// runRaw is a hand-written server that breaks the protocol in the way
// o.raw names; it answers just enough of MCP for the break to be reached.
//
//	no-init      reads stdin and never answers
//	big          one tool, big, whose reply is o.bigBytes of text, streamed
//	big-noid     the same reply without an id
//	huge-list    tools/list answers o.tools tools in one page
//	cursor-loop  tools/list always answers the same nextCursor
//	flood        after initialized, 100,000 log notifications; calls still answered
func runRaw(o options) int {
	if o.raw == "no-init" {
		io.Copy(io.Discard, os.Stdin)
		return 0
	}
	out := &rawOut{w: bufio.NewWriterSize(os.Stdout, 1<<20)}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &req) != nil {
			continue
		}
		method := req.Method
		if method == "tools/call" && req.Params.Name == "big" {
			method = "tools/call big"
		}
		rawAnswer(o, out, req.ID, method)
	}
	return 0
}

// rawOut serialises whole lines to stdout.
type rawOut struct {
	mu sync.Mutex
	w  *bufio.Writer
}

func (o *rawOut) line(s string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.w.WriteString(s + "\n")
	o.w.Flush()
}

func rawAnswer(o options, out *rawOut, id json.RawMessage, method string) {
	result := func(v string) { out.line(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, v)) }
	switch method {
	case "initialize":
		result(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"logging":{}},"serverInfo":{"name":"raw","version":"1"}}`)
	case "notifications/initialized":
		if o.raw == "flood" {
			go flood(out)
		}
	case "tools/list":
		result(rawToolList(o))
	case "tools/call big":
		streamBig(out, id, o)
	case "tools/call":
		result(`{"content":[{"type":"text","text":"raw ok"}]}`)
	case "ping":
		result(`{}`)
	default:
		if id != nil {
			out.line(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}`, id))
		}
	}
}

func rawToolList(o options) string {
	tool := func(name string) string {
		return fmt.Sprintf(`{"name":%q,"description":"raw tool","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`, name)
	}
	switch o.raw {
	case "huge-list":
		items := make([]string, o.tools)
		for i := range items {
			items[i] = tool(fmt.Sprintf("t%d", i))
		}
		return `{"tools":[` + strings.Join(items, ",") + `]}`
	case "cursor-loop":
		return `{"tools":[` + tool("loop") + `],"nextCursor":"again"}`
	}
	return `{"tools":[` + tool("big") + `,` + tool("small") + `]}`
}

// streamBig writes one reply of o.bigBytes without holding it in memory.
func streamBig(out *rawOut, id json.RawMessage, o options) {
	out.mu.Lock()
	defer out.mu.Unlock()
	w := out.w
	idPart := ""
	if o.raw == "big" {
		idPart = fmt.Sprintf(`"id":%s,`, id)
	}
	if o.idLast {
		w.WriteString(`{"result":{"content":[{"type":"text","text":"`)
	} else {
		w.WriteString(`{"jsonrpc":"2.0",` + idPart + `"result":{"content":[{"type":"text","text":"`)
	}
	chunk := strings.Repeat("y", 64<<10)
	for n := int64(0); n < o.bigBytes; n += int64(len(chunk)) {
		w.WriteString(chunk)
	}
	if o.idLast {
		w.WriteString(`"}]},"jsonrpc":"2.0"` + strings.TrimSuffix(","+idPart, ",") + "}\n")
	} else {
		w.WriteString(`"}]}}` + "\n")
	}
	w.Flush()
}

// flood sends log notifications as fast as stdout takes them.
func flood(out *rawOut) {
	for i := range 100000 {
		out.line(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"flood %d"}}`, i))
	}
}
