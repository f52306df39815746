package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"steerable.dev/sidecar/internal/wire"
)

// direct answers tools/call on a StreamTransport connection itself, past the
// SDK. Through the SDK every call cost two decodings of its params into
// 32 KiB buffers (the SDK's per-request protocol detection, then the
// params), three goroutines and a re-validation of the result: under load
// that garbage and its collection were a third of the server's CPU. The
// connection's read loop offers each call to take, which accepts only what
// the SDK would hand the server's own handler unchanged:
//
//   - the session is connected and past notifications/initialized (so
//     calls before initialize, and the handshake's ordering, stay the
//     SDK's, which answers them as before);
//   - the params are an object with a string name, an optional object
//     _meta without the sessionless protocol's version key, and none of
//     the multi-round-trip members (inputResponses, requestState).
//
// Everything else — a malformed call, the handshake, lists, pings,
// notifications, elicitation answers — goes to the SDK. An accepted call
// runs the same handler (serveCall) as one the SDK hands over; cancellation,
// progress and elicitation work the same, as the connection tracks the call
// with the SDK's and the session is the SDK's.
type direct struct {
	s       *Server
	session atomic.Pointer[mcp.ServerSession] // set once Connect returns

	mu      sync.Mutex
	stopped bool           // wait has begun: no call is accepted any more
	running sync.WaitGroup // accepted calls not answered yet
}

// take reports whether the server answers req itself; run then answers it
// and returns the reply frame.
func (d *direct) take(req *jsonrpc.Request) (run func(ctx context.Context) []byte, ok bool) {
	if req.Method != "tools/call" || !req.IsCall() {
		return nil, false
	}
	ss := d.session.Load()
	if ss == nil || !d.s.isInitialized(ss) {
		return nil, false
	}
	p, ok := callParams(req.Params)
	if !ok {
		return nil, false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stopped {
		return nil, false
	}
	d.running.Add(1)
	id := req.ID
	return func(ctx context.Context) []byte {
		defer d.running.Done()
		r, err := d.s.serveCall(ctx, &mcp.CallToolRequest{Session: ss, Params: p})
		if err != nil {
			return errorFrame(id, wireError(err))
		}
		return appendResultFrame(id, r)
	}, true
}

// wait blocks until every accepted call has returned, and accepts no more:
// Serve does not return while one still runs.
func (d *direct) wait() {
	d.mu.Lock()
	d.stopped = true
	d.mu.Unlock()
	d.running.Wait()
}

// callParams decodes tools/call params as the SDK does (exact member names:
// encoding/json alone would also match "Name"), or says the SDK must decode
// them: anything it would refuse or treat specially.
func callParams(raw json.RawMessage) (*mcp.CallToolParamsRaw, bool) {
	if len(raw) == 0 || raw[0] != '{' {
		return nil, false
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(raw, &members) != nil {
		return nil, false
	}
	p := &mcp.CallToolParamsRaw{}
	for k, v := range members {
		var err error
		switch k {
		case "name":
			if v[0] != '"' {
				return nil, false
			}
			err = json.Unmarshal(v, &p.Name)
		case "arguments":
			p.Arguments = v
		case "_meta":
			if v[0] != '{' {
				return nil, false
			}
			err = json.Unmarshal(v, &p.Meta)
		case "inputResponses", "requestState":
			return nil, false
		}
		if err != nil {
			return nil, false
		}
	}
	if _, ok := members["name"]; !ok {
		return nil, false
	}
	if _, sessionless := p.Meta[mcp.MetaKeyProtocolVersion]; sessionless {
		return nil, false
	}
	return p, true
}

// appendResultFrame is the reply frame of a tools/call result, encoded in
// one buffer: the envelope, then the result as encodeResult writes it.
func appendResultFrame(id jsonrpc.ID, r *mcp.CallToolResult) []byte {
	b, err := wire.AppendResult(make([]byte, 0, resultSize(r)+64), rawID(id), toolResult{r})
	if err != nil {
		return errorFrame(id, wireError(internalError(fmt.Sprintf("encoding the tool result: %v", err))))
	}
	return b
}

// toolResult appends itself (protocol.JSONAppender) as appendResult writes
// it.
type toolResult struct{ r *mcp.CallToolResult }

func (t toolResult) AppendJSON(dst []byte) ([]byte, error) { return appendResult(dst, t.r) }
