package plugins

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// frameFilter sits between a server's stdout and the MCP client and lets
// through only what the client can safely take: one JSON-RPC message per
// line, each at most max bytes, and notifications at a bounded rate. The
// rest is handled here, so a misbehaving server costs a log line instead
// of the session:
//
//   - a line that is not JSON (a server printing its banner to stdout) is
//     dropped and reported through onNoise;
//   - a line over max bytes is skipped as it streams (memory stays bounded)
//     and, when its id can be read from its first or last bytes, answered
//     in the server's place with an error the tool turns into a clear
//     result; one without a readable id breaks the connection, which fails
//     the plugin with the reason;
//   - notifications beyond the budget are dropped (the client queues every
//     message it reads without bound); list_changed is always let through,
//     its handler coalesces.
type frameFilter struct {
	src     *bufio.Reader
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
	maxKeptEnd        = 512 // bytes of an oversized line kept at each end, to find its id
	notifyBurst       = 256
	notifyPerSecond   = 256
	maxNoiseExample   = 200
	listChangedMethod = "notifications/tools/list_changed"
)

func newFrameFilter(r io.Reader, limit int) *frameFilter {
	return &frameFilter{src: bufio.NewReaderSize(r, 64<<10), max: limit,
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
		line, big, err := f.readLine()
		switch {
		case big != nil:
			if out, err := f.oversized(big); out != nil || err != nil {
				msg, _ := jsonrpc.DecodeMessage(out)
				return frame{line: out, msg: msg}, err
			}
		case len(line) > 0:
			if fr := f.classify(line); fr.line != nil {
				return fr, nil
			}
		}
		if err != nil {
			return frame{}, err
		}
	}
}

// oversize is what is kept of a line over max bytes.
type oversize struct {
	head, tail []byte
	size       int64
}

// readLine reads one line without its newline, at most max bytes; a longer
// one is consumed to its end and returned as oversize.
func (f *frameFilter) readLine() ([]byte, *oversize, error) {
	var line []byte
	for {
		chunk, err := f.src.ReadSlice('\n')
		if len(line)+len(chunk) > f.max+1 {
			return nil, f.skip(append(line, chunk...), err), nil
		}
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), nil, err
	}
}

// skip consumes the rest of an oversized line, keeping its two ends in
// fixed buffers.
func (f *frameFilter) skip(start []byte, err error) *oversize {
	big := &oversize{head: bytes.Clone(start[:min(len(start), maxKeptEnd)]), size: int64(len(start))}
	tail := make([]byte, 0, 2*maxKeptEnd)
	keepTail := func(b []byte) {
		b = b[max(0, len(b)-maxKeptEnd):]
		if len(tail)+len(b) > cap(tail) {
			tail = append(tail[:0], tail[len(tail)-(maxKeptEnd-len(b)):]...)
		}
		tail = append(tail, b...)
	}
	keepTail(start)
	for errors.Is(err, bufio.ErrBufferFull) {
		var chunk []byte
		chunk, err = f.src.ReadSlice('\n')
		big.size += int64(len(chunk))
		keepTail(chunk)
	}
	big.tail = bytes.TrimRight(tail[max(0, len(tail)-maxKeptEnd):], "\r\n")
	return big
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

// Ends of a JSON-RPC message that carry its id: the Go and Python SDKs
// write it first ({"jsonrpc":"2.0","id":7,"result":…), the TypeScript SDK
// last (…,"jsonrpc":"2.0","id":7}). Compiled on first use: the bounded
// repeats make big programs, and only an oversized message needs them
// (compiling them at init cost every start-up 0.6 ms).
var (
	idValue = `(-?(?:0|[1-9][0-9]{0,18})|"(?:[^"\\]|\\.){0,200}")`
	idHead  = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*` + idValue + `\s*,`)
	})
	idTail = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`,\s*"id"\s*:\s*` + idValue + `\s*\}\s*$`) })
	isCall = regexp.MustCompile(`"method"\s*:`)
)

// oversized answers an oversized reply in the server's place, drops an
// oversized notification, and breaks the stream for anything else.
func (f *frameFilter) oversized(big *oversize) ([]byte, error) {
	id := idHead().FindSubmatch(big.head)
	if id == nil {
		id = idTail().FindSubmatch(big.tail)
	}
	if id != nil && !json.Valid(id[1]) {
		id = nil
	}
	switch {
	case id != nil && !isCall.Match(big.head):
		msg := fmt.Sprintf("reply of %d bytes exceeds the sidecar's limit of %d bytes for one plugin message (STEERABLE_PLUGIN_MAX_MESSAGE_BYTES)", big.size, f.max)
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id[1]),
			"error": map[string]any{"code": codeTooLarge, "message": msg, "data": map[string]any{"bytes": big.size, "limit": f.max}}})
		return b, nil
	case id == nil && isCall.Match(big.head):
		f.onDrop("oversized notification")
		return nil, nil
	}
	return nil, fmt.Errorf("the server sent a message of %d bytes, over the limit of %d (STEERABLE_PLUGIN_MAX_MESSAGE_BYTES), that the sidecar cannot answer for it", big.size, f.max)
}

// tokenBucket bounds a rate: burst tokens, refilled at rate per second.
type tokenBucket struct {
	mu     sync.Mutex
	tokens float64
	burst  float64
	rate   float64
	last   time.Time
}

func newTokenBucket(burst, rate int) *tokenBucket {
	return &tokenBucket{tokens: float64(burst), burst: float64(burst), rate: float64(rate), last: time.Now()}
}

func (b *tokenBucket) take() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	b.tokens = min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}
