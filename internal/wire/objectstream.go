package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/sourcegraph/jsonrpc2"

	"steerable.dev/sidecar/protocol"
)

// ObjectStream is a jsonrpc2.MessageStream (third_party/jsonrpc2,
// PATCHED.md) over a Reader and a Writer: the library's Conn carries the
// messages both ways, while framing, the frame limit, the envelope rules and
// the bounded writer stay this package's.
//
// Reading, a frame that cannot be served never reaches the Conn: it is
// answered here (queued, with its own id whenever it can be read) and
// skipped, so nothing the peer sends ends the connection but the end of its
// input. A malformed reply that names an id reaches the Conn as a Response
// whose Err ends the call with that id.
//
// Writing, a frame is assembled from its parts (encode.go) and handed to the
// Writer in the mode its context names (WithMode): a response waits for room
// as long as it takes, a request or notification as long as its context.
type ObjectStream struct {
	in    *Reader
	out   *Writer
	close io.Closer
	o     StreamOptions

	startOnce sync.Once
	start     chan struct{} // closed by Start: reading may begin
	ended     chan struct{} // closed when ReadMessage has returned its error

	last struct { // the message ReadMessage returned last (Last)
		req  *jsonrpc2.Request
		msg  Message
		size int
	}
}

// StreamOptions configure an ObjectStream.
type StreamOptions struct {
	Framing       string // FramingNewline or FramingContentLength
	MaxFrameBytes int
	LimitName     string // the variable that sets MaxFrameBytes, named in the error an oversized frame gets
	MaxQueueBytes int    // the Writer's bound
	// Known maps method names to interned strings (Parse).
	Known map[string]string
	// BeforeRead, if set, runs on the reading goroutine before each frame is
	// read: where a server paces its peer (it may block).
	BeforeRead func()
	// OnReject, if set, is told of each frame answered and skipped.
	OnReject func(*FrameError)
	// OnNullID, if set, is told of a reply with a null id (nothing waits
	// for it).
	OnNullID func()
	// OnEnd, if set, is told why the input ended (io.EOF, or a read error),
	// before the Conn fails its pending calls.
	OnEnd func(error)
	// OnWriteError is the Writer's (NewWriter).
	OnWriteError func(error)
}

// NewObjectStream reads frames from in and writes them to out. in is closed
// by Close when it is an io.Closer; out never is.
func NewObjectStream(in io.Reader, out io.Writer, o StreamOptions) *ObjectStream {
	s := &ObjectStream{o: o, start: make(chan struct{}), ended: make(chan struct{})}
	s.out = NewWriter(out, o.Framing, o.MaxQueueBytes, o.OnWriteError)
	s.in = NewReader(in, o.Framing, o.MaxFrameBytes, o.LimitName, s.out.Flush)
	if c, ok := in.(io.Closer); ok {
		s.close = c
	}
	return s
}

// Writer is the stream's output, for what is not a message of the Conn's:
// flushing, draining, its Stats.
func (s *ObjectStream) Writer() *Writer { return s.out }

// Reads counts the reads of the input so far (Reader.Reads): the frames of
// one read form a batch.
func (s *ObjectStream) Reads() uint64 { return s.in.Reads() }

// Start lets ReadMessage begin: a server starts reading once its first
// frame (a ready notification) is out.
func (s *ObjectStream) Start() { s.startOnce.Do(func() { close(s.start) }) }

// Ended is closed once the input has ended (ReadMessage returned its error).
func (s *ObjectStream) Ended() <-chan struct{} { return s.ended }

// Last is the frame ReadMessage returned req from, read once (its id's Key,
// its params as a span of the frame) and its size in bytes, for a Handler,
// which the Conn calls on the reading goroutine before the next read.
// ok is false when req is not the last request read.
func (s *ObjectStream) Last(req *jsonrpc2.Request) (msg Message, size int, ok bool) {
	if s.last.req != req {
		return Message{}, 0, false
	}
	return s.last.msg, s.last.size, true
}

// ReadMessage implements jsonrpc2.MessageStream.
func (s *ObjectStream) ReadMessage() (*jsonrpc2.Request, *jsonrpc2.Response, error) {
	<-s.start
	s.last.req = nil
	for {
		if s.o.BeforeRead != nil {
			s.o.BeforeRead()
		}
		frame, err := s.next()
		if err != nil {
			s.out.Flush()
			if s.o.OnEnd != nil {
				s.o.OnEnd(err)
			}
			close(s.ended)
			return nil, nil, err
		}
		if req, resp := s.decode(frame); req != nil || resp != nil {
			return req, resp, nil
		}
	}
}

// next returns the next frame's bytes (possibly blank), answering and
// skipping frames that cannot be read whole: oversized ones (with their own
// id when it can be recovered) and Content-Length blocks without a length.
func (s *ObjectStream) next() ([]byte, error) {
	for {
		frame, err := s.in.Next()
		var tooLarge *TooLargeError
		switch {
		case errors.As(err, &tooLarge):
			id := NullID
			if tooLarge.ID != nil {
				id = tooLarge.ID
			}
			s.reject(&FrameError{ID: id, Code: protocol.CodeInvalidRequest, Message: tooLarge.Error()})
		case errors.Is(err, ErrBadHeader):
			s.reject(&FrameError{ID: NullID, Code: protocol.CodeInvalidRequest, Message: err.Error()})
		default:
			return frame, err
		}
	}
}

// reject answers a frame that cannot be served; the answer is queued and
// goes out before the next read of the input.
func (s *ObjectStream) reject(fe *FrameError) {
	if s.o.OnReject != nil {
		s.o.OnReject(fe)
	}
	_ = s.out.Queue(fe.Reply())
}

// decode turns one frame into the Conn's message, or nil, nil when it was
// blank or answered here.
func (s *ObjectStream) decode(frame []byte) (*jsonrpc2.Request, *jsonrpc2.Response) {
	if isBlank(frame) {
		return nil, nil
	}
	msg, fe := Parse(frame, s.o.Known)
	if fe != nil {
		s.reject(fe)
		if msg.Kind == Response {
			return nil, &jsonrpc2.Response{ID: connID(msg.ID), Err: fmt.Errorf("the host sent a malformed reply (%s)", fe.Message)}
		}
		return nil, nil
	}
	switch msg.Kind {
	case Request, Notification:
		r := &requestAndParams{params: msg.Params} // one allocation for both
		req := &r.req
		req.Method, req.Notif = msg.Method, msg.Kind == Notification
		if msg.Params != nil {
			req.Params = &r.params
		}
		if msg.Kind == Request {
			req.ID = connID(msg.ID)
			req.ID.Raw = string(msg.ID.Raw)
		}
		s.last.req, s.last.msg, s.last.size = req, msg, len(frame)
		return req, nil
	case Response:
		resp := &jsonrpc2.Response{ID: connID(msg.ID)}
		if msg.Error != nil {
			resp.Error = &jsonrpc2.Error{Code: msg.Error.Code, Message: msg.Error.Message}
			if len(msg.Error.Data) > 0 {
				resp.Error.Data = &msg.Error.Data
			}
		} else {
			resp.Result = &msg.Result
		}
		return nil, resp
	}
	if s.o.OnNullID != nil {
		s.o.OnNullID()
	}
	return nil, nil
}

// requestAndParams is a Request with the params it points to.
type requestAndParams struct {
	req    jsonrpc2.Request
	params json.RawMessage
}

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// connID is id as the Conn matches it (Raw empty: a reply is matched by
// value, whatever its spelling).
func connID(id ID) jsonrpc2.ID {
	if len(id.Key) > 0 && id.Key[0] == 's' {
		return jsonrpc2.ID{Str: id.Key[1:], IsString: true}
	}
	n, _ := strconv.ParseUint(id.Key[min(1, len(id.Key)):], 10, 64)
	return jsonrpc2.ID{Num: n}
}

// RawID is the JSON of a Conn's id: as it came, for an id read from the
// peer.
func RawID(id jsonrpc2.ID) json.RawMessage {
	b, _ := id.MarshalJSON()
	return b
}

// Write modes (WithMode).
type Mode int

const (
	// ModeWait (the default): a response waits for room as long as it
	// takes, a request or notification as long as its context.
	ModeWait Mode = iota
	// ModeQueue queues the frame without writing: it goes out with the
	// reading goroutine's batch, before its next read (a reply answered
	// while reading).
	ModeQueue
	// ModeTry drops the frame, and counts it, when the queue is full (a
	// progress notification the next one supersedes).
	ModeTry
)

type modeKey struct{}

// WithMode returns ctx carrying the write mode m.
func WithMode(ctx context.Context, m Mode) context.Context {
	return context.WithValue(ctx, modeKey{}, m)
}

// ErrDropped is a ModeTry frame the full queue did not take.
var ErrDropped = errors.New("output queue full: frame dropped")

// WriteMessage implements jsonrpc2.MessageStream.
func (s *ObjectStream) WriteMessage(ctx context.Context, req *jsonrpc2.Request, resp *jsonrpc2.Response) error {
	buf := getFrameBuf()
	defer putFrameBuf(buf)
	frame, err := appendMessage((*buf)[:0], req, resp)
	*buf = frame
	if err != nil {
		return err
	}
	mode, _ := ctx.Value(modeKey{}).(Mode)
	switch {
	case mode == ModeQueue:
		return s.out.Queue(frame)
	case mode == ModeTry:
		if !s.out.TrySend(frame) {
			return ErrDropped
		}
		return nil
	case resp != nil:
		return s.out.Send(frame) // a reply is never dropped
	default:
		return s.out.SendCtx(ctx, frame)
	}
}

// appendMessage assembles req's or resp's frame. Params, results and error
// data are already JSON (the Conn marshals them once) and are copied as
// they are.
func appendMessage(dst []byte, req *jsonrpc2.Request, resp *jsonrpc2.Response) ([]byte, error) {
	switch {
	case resp != nil && resp.Error != nil:
		e, err := json.Marshal(resp.Error)
		if err != nil {
			return dst, err
		}
		dst = append(dst, `{"jsonrpc":"2.0","id":`...)
		dst = appendID(dst, resp.ID)
		dst = append(dst, `,"error":`...)
		dst = append(dst, e...)
		return append(dst, '}'), nil
	case resp != nil:
		dst = append(dst, `{"jsonrpc":"2.0","id":`...)
		dst = appendID(dst, resp.ID)
		dst = append(dst, `,"result":`...)
		dst = append(dst, rawOrNull(resp.Result)...)
		return append(dst, '}'), nil
	case req != nil:
		dst = append(dst, `{"jsonrpc":"2.0",`...)
		if !req.Notif {
			dst = append(dst, `"id":`...)
			dst = appendID(dst, req.ID)
			dst = append(dst, ',')
		}
		dst = append(dst, `"method":`...)
		dst = protocol.AppendJSONString(dst, req.Method)
		dst = append(dst, `,"params":`...)
		dst = append(dst, rawOrNull(req.Params)...)
		return append(dst, '}'), nil
	}
	return dst, errors.New("wire: a message must be a request or a response")
}

// appendID appends id's JSON as RawID would, without allocating for an id
// read from the peer or a plain string.
func appendID(dst []byte, id jsonrpc2.ID) []byte {
	switch {
	case id.Raw != "":
		return append(dst, id.Raw...)
	case !id.IsString:
		return strconv.AppendUint(dst, id.Num, 10)
	case isPlain(id.Str):
		dst = append(dst, '"')
		dst = append(dst, id.Str...)
		return append(dst, '"')
	}
	return append(dst, RawID(id)...)
}

// isPlain: s is printable ASCII that encoding/json writes as it is.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

func rawOrNull(m *json.RawMessage) []byte {
	if m == nil || len(*m) == 0 {
		return []byte("null")
	}
	return *m
}

// ReadObject implements jsonrpc2.ObjectStream; the Conn uses ReadMessage.
func (s *ObjectStream) ReadObject(any) error {
	return errors.New("wire: ObjectStream is read with ReadMessage")
}

// WriteObject implements jsonrpc2.ObjectStream; the Conn uses WriteMessage.
func (s *ObjectStream) WriteObject(any) error {
	return errors.New("wire: ObjectStream is written with WriteMessage")
}

// Close closes the input, which ends a read in progress. Output is left
// open: what is queued still goes out.
func (s *ObjectStream) Close() error {
	s.Start() // a reader still waiting to start sees the closed input
	if s.close != nil {
		return s.close.Close()
	}
	return nil
}

// frameBufs recycles the buffers frames are assembled in: the Writer copies
// a frame before it returns. Buffers that grew past maxPooledFrame (a large
// file's content) are left to the collector.
var frameBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

const maxPooledFrame = 64 << 10

func getFrameBuf() *[]byte { return frameBufs.Get().(*[]byte) }

func putFrameBuf(p *[]byte) {
	if cap(*p) <= maxPooledFrame {
		*p = (*p)[:0]
		frameBufs.Put(p)
	}
}

var _ jsonrpc2.MessageStream = (*ObjectStream)(nil)
