package plugins

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"steerable.dev/sidecar/internal/clip"
	"steerable.dev/sidecar/internal/wire"
)

// stdioConn is the MCP client's connection to a server's stdio: the SDK's
// Transport seam, in place of its IOTransport. The SDK's version reads in
// a goroutine of its own and hands each message over a channel to the
// session's reader, decoding it twice on the way (a json.Decoder pass to
// find its end, then the message); on a two-core machine the extra
// goroutine hop is a wake-up on every reply's path. Here the session's
// reader takes the frame filter's next message itself, decoded once (by
// the filter, which classifies it so).
//
// Both directions are internal/wire's: the filter reads through its frame
// reader, and messages to the server go through its bounded writer (one
// write per message when they come one at a time; messages sent while a
// write is under way go out together in the next).
//
// Reads and Close may race (the SDK requires it): closing the server's
// stdout, an os.Pipe end, ends a read blocked in it.
type stdioConn struct {
	frames *frameFilter
	stdout interface{ Close() error }
	stdin  stallWriter
	out    *wire.Writer

	queue []jsonrpc.Message // the rest of a batch (read by the one reader)

	// progress, when set, sees every notifications/progress as it is read:
	// the SDK hands notifications to a goroutine of their own while replies
	// go straight to their callers, so a reply can overtake the progress the
	// server sent before it, and the call waits for what was read.
	progress func(token string)

	closeOnce sync.Once
	closeErr  error
}

// maxStdinQueue bounds the messages queued for a server's stdin behind a
// write under way (a larger one waits until nothing is queued, then goes
// alone); each write is bounded in time by stallWriter.
const maxStdinQueue = 4 << 20

func newStdioConn(frames *frameFilter, stdout interface{ Close() error }, stdin stallWriter) *stdioConn {
	return &stdioConn{frames: frames, stdout: stdout, stdin: stdin,
		out: wire.NewWriter(stdin, wire.FramingNewline, maxStdinQueue, nil)}
}

// stdioTransport connects a session over one stdioConn.
type stdioTransport struct{ conn *stdioConn }

func (t stdioTransport) Connect(context.Context) (mcp.Connection, error) { return t.conn, nil }

// Read returns the next message the filter lets through.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(c.queue) > 0 {
		msg := c.queue[0]
		c.queue = c.queue[1:]
		return c.seen(msg), nil
	}
	fr, err := c.frames.nextFrame()
	switch {
	case err != nil:
		return nil, err
	case fr.msg != nil:
		return c.seen(fr.msg), nil
	case fr.line[0] != '[':
		_, err := jsonrpc.DecodeMessage(fr.line)
		return nil, c.frames.broke(fmt.Errorf("the server wrote a line that is JSON but not a JSON-RPC message (%v): %s", err, clip.Within(string(fr.line), 200)))
	}
	msgs, err := decodeBatch(fr.line)
	if err != nil {
		return nil, c.frames.broke(fmt.Errorf("the server wrote a JSON-RPC batch that cannot be used (%v): %s", err, clip.Within(string(fr.line), 200)))
	}
	c.queue = msgs[1:]
	return c.seen(msgs[0]), nil
}

// seen tells progress about a progress notification the session is about
// to be handed.
func (c *stdioConn) seen(msg jsonrpc.Message) jsonrpc.Message {
	if req, ok := msg.(*jsonrpc.Request); ok && c.progress != nil && !req.ID.IsValid() && req.Method == "notifications/progress" {
		var p struct {
			Token any `json:"progressToken"`
		}
		if json.Unmarshal(req.Params, &p) == nil {
			if token, ok := p.Token.(string); ok {
				c.progress(token)
			}
		}
	}
	return msg
}

// decodeBatch decodes a JSON-RPC batch (the filter has checked it is valid
// JSON). Replies to the client's calls are all a server has reason to
// batch; each message is handled as if it came alone.
func decodeBatch(line []byte) ([]jsonrpc.Message, error) {
	var raws []json.RawMessage
	if err := json.Unmarshal(line, &raws); err != nil {
		return nil, err
	}
	if len(raws) == 0 {
		return nil, errors.New("it is empty")
	}
	msgs := make([]jsonrpc.Message, 0, len(raws))
	for _, raw := range raws {
		msg, err := jsonrpc.DecodeMessage(raw)
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, msg)
	}
	return msgs, nil
}

// Write sends one message as one line.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	return c.out.Send(data)
}

// Close closes the server's stdin (which asks it to exit) and stdout.
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() {
		c.closeErr = errors.Join(c.stdout.Close(), c.stdin.Close())
	})
	return c.closeErr
}

func (c *stdioConn) SessionID() string { return "" }

var (
	_ mcp.Transport  = stdioTransport{}
	_ mcp.Connection = (*stdioConn)(nil)
)
