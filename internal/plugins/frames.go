package plugins

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"steerable.dev/sidecar/internal/wire"
	"steerable.dev/sidecar/protocol"
)

// frameFilter sits between a server's stdout and the MCP client and lets
// through only what the client can safely take: one JSON-RPC message per
// line, each at most max bytes, and notifications at a bounded rate. The
// rest is handled here, so a misbehaving server costs a log line instead
// of the session:
//
//   - a line that is not JSON (a server printing its banner to stdout) is
//     dropped and reported through onNoise;
//   - a line over max bytes is skipped as it streams (memory stays bounded;
//     internal/wire's reader, the sidecar's one frame reader) and, when it
//     is a reply whose id wire can read from its first or last bytes,
//     answered in the server's place with an error the tool turns into a
//     clear result; an oversized notification is dropped, anything else
//     breaks the connection, which fails the plugin with the reason;
//   - notifications beyond the budget are dropped (the client queues every
//     message it reads without bound); list_changed is always let through,
//     its handler coalesces.
type frameFilter struct {
	src     *wire.Reader
	max     int
	budget  *tokenBucket
	onNoise func(line []byte)
	onDrop  func(what string)

	pending []byte // the rest of the line Read is returning

	mu      sync.Mutex
	err     error  // sticky: the stream is over or broken
	noise   int    // lines that were not JSON
	example string // the first of them, clipped
}

// Codes of the errors the filter answers in the server's place.
const codeTooLarge = -32090

// Bounds of the filter.
const (
	limitName         = "STEERABLE_PLUGIN_MAX_MESSAGE_BYTES"
	notifyBurst       = 256
	notifyPerSecond   = 256
	maxNoiseExample   = 200
	listChangedMethod = "notifications/tools/list_changed"
)

func newFrameFilter(r io.Reader, limit int) *frameFilter {
	return &frameFilter{src: wire.NewReader(r, wire.FramingNewline, limit, limitName, nil), max: limit,
		budget: newTokenBucket(notifyBurst, notifyPerSecond), onNoise: func([]byte) {}, onDrop: func(string) {}}
}

// frame is one line the filter passes on (not empty, without its
// newline) and, for a single message, the message decoded: the filter
// decodes each line once, to classify it, and the client's connection
// (stdioConn) takes that decoding rather than doing it again.
type frame struct {
	line []byte
	msg  jsonrpc.Message // nil for a batch, or a JSON object that is not JSON-RPC
}

// nextFrame returns the next frame to pass on. After an error it returns
// that error again.
func (f *frameFilter) nextFrame() (frame, error) {
	if f.err != nil { // written only by this, the one reader
		return frame{}, f.err
	}
	fr, err := f.next()
	if err != nil {
		f.mu.Lock()
		f.err = err
		f.mu.Unlock()
	}
	return fr, err
}

// broke ends the stream with err, which Err then reports (why the plugin
// failed): the client could not use a line the filter let through.
func (f *frameFilter) broke(err error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil {
		f.err = err
	}
	return f.err
}

// Read is the filter as a stream of lines, each with its newline.
func (f *frameFilter) Read(p []byte) (int, error) {
	if len(f.pending) == 0 {
		fr, err := f.nextFrame()
		if err != nil {
			return 0, err
		}
		f.pending = append(fr.line, '\n')
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// next returns the next frame to pass on, or an error. A final line
// without a newline is passed on before EOF.
func (f *frameFilter) next() (frame, error) {
	for {
		line, err := f.src.Next()
		var big *wire.TooLargeError
		switch {
		case errors.As(err, &big):
			if out, err := f.oversized(big); out != nil || err != nil {
				msg, _ := jsonrpc.DecodeMessage(out)
				return frame{line: out, msg: msg}, err
			}
		case err != nil:
			return frame{}, err
		default:
			if fr := f.classify(line); fr.line != nil {
				return fr, nil
			}
		}
	}
}

// classify returns the frame to pass on; one without a line is dropped.
// A JSON object that is not a JSON-RPC message is passed on undecoded: the
// client fails the connection on it, naming the problem.
func (f *frameFilter) classify(line []byte) frame {
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 {
		return frame{}
	}
	if trimmed[0] == '[' && json.Valid(trimmed) { // a batch; the client decides
		return frame{line: trimmed}
	}
	if trimmed[0] != '{' {
		f.noted(trimmed)
		return frame{}
	}
	msg, err := jsonrpc.DecodeMessage(trimmed)
	if err != nil {
		if !json.Valid(trimmed) {
			f.noted(trimmed)
			return frame{}
		}
		return frame{line: trimmed}
	}
	if req, ok := msg.(*jsonrpc.Request); ok && !req.ID.IsValid() && req.Method != listChangedMethod && !f.budget.take() {
		f.onDrop(req.Method)
		return frame{}
	}
	return frame{line: trimmed, msg: msg}
}

func (f *frameFilter) noted(line []byte) {
	f.mu.Lock()
	f.noise++
	if f.noise == 1 {
		f.example = string(line[:min(len(line), maxNoiseExample)])
	}
	f.mu.Unlock()
	f.onNoise(line)
}

// Err is why the stream ended (nil while it runs).
func (f *frameFilter) Err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// Noise reports how many stdout lines were not JSON, and the first.
func (f *frameFilter) Noise() (int, string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.noise, f.example
}

// oversized answers an oversized reply in the server's place, drops an
// oversized notification, and breaks the stream for anything else.
func (f *frameFilter) oversized(big *wire.TooLargeError) ([]byte, error) {
	switch {
	case big.ID != nil && !big.Method:
		msg := fmt.Sprintf("reply of %d bytes exceeds the sidecar's limit of %d bytes for one plugin message (%s)", big.Size, f.max, limitName)
		return wire.AppendError(nil, big.ID, protocol.WireError{Code: codeTooLarge, Message: msg,
			Data: map[string]any{"bytes": big.Size, "limit": f.max}}), nil
	case big.ID == nil && big.Method:
		f.onDrop("oversized notification")
		return nil, nil
	}
	return nil, fmt.Errorf("the server sent a message of %d bytes, over the limit of %d (%s), that the sidecar cannot answer for it", big.Size, f.max, limitName)
}

// tokenBucket bounds a rate: burst tokens, refilled at rate per second.
type tokenBucket struct {
	mu     sync.Mutex
	tokens float64
	burst  float64
	rate   float64
	last   time.Time
	now    func() time.Time // time.Now; a test stops the clock
}

func newTokenBucket(burst, rate int) *tokenBucket {
	return &tokenBucket{tokens: float64(burst), burst: float64(burst), rate: float64(rate), last: time.Now(), now: time.Now}
}

func (b *tokenBucket) take() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	b.tokens = min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}
