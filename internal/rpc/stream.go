package rpc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/rs/zerolog"
	"github.com/sourcegraph/jsonrpc2"

	"steerable.dev/sidecar/protocol"
)

// Framings of SPEC §1.
const (
	FramingNewline       = "newline"
	FramingContentLength = "content-length"
)

var (
	errFrameTooLarge = errors.New("frame too large")
	errBadHeader     = errors.New("missing or invalid Content-Length header")
)

// maxHeaderLine bounds one Content-Length header line.
const maxHeaderLine = 4096

// stream is the jsonrpc2.ObjectStream under the connection. It supplies what
// the library lacks (see doc.go): bad frames are answered here and skipped,
// never returned as errors (which would close the connection); EOF is
// reported to the server and then held until Close, so replies to in-flight
// calls can still be written while the server drains; writes are serialised
// and the first write error is reported once.
type stream struct {
	in       *bufio.Reader
	inCloser io.Closer
	out      io.Writer
	framing  string
	maxFrame int
	log      zerolog.Logger

	// Writes are group-committed: a writer appends its frame to pending and
	// either becomes the flusher (one write syscall for every frame queued
	// meanwhile) or waits until the flusher has written its frame. Under
	// load this turns many small writes into few; idle, it is one write per
	// frame with no added latency.
	wmu      sync.Mutex
	wcond    *sync.Cond
	pending  bytes.Buffer
	spare    bytes.Buffer
	queued   uint64 // frames appended
	written  uint64 // frames written
	flushing bool
	werr     error

	started   chan struct{} // closed by start: nothing is read before lifecycle.ready
	eof       chan struct{} // closed when the input ends
	eofOnce   sync.Once
	closed    chan struct{} // closed by Close
	closeOnce sync.Once

	onWriteError func(error)
}

func newStream(in io.Reader, out io.Writer, framing string, maxFrame int, log zerolog.Logger) *stream {
	s := &stream{
		in:       bufio.NewReaderSize(in, 64<<10),
		out:      out,
		framing:  framing,
		maxFrame: maxFrame,
		log:      log,
		started:  make(chan struct{}),
		eof:      make(chan struct{}),
		closed:   make(chan struct{}),
	}
	if c, ok := in.(io.Closer); ok {
		s.inCloser = c
	}
	s.wcond = sync.NewCond(&s.wmu)
	return s
}

// start lets ReadObject begin; the server calls it once lifecycle.ready is
// written, so that notification is always the first frame on stdout.
func (s *stream) start() { close(s.started) }

// ReadObject implements jsonrpc2.ObjectStream: it returns the next valid
// frame, answering and skipping every invalid one.
func (s *stream) ReadObject(v any) error {
	select {
	case <-s.started:
	case <-s.closed:
		return io.EOF
	}
	for {
		frame, err := s.next()
		switch {
		case errors.Is(err, errFrameTooLarge):
			s.reject(&frameError{nullID, protocol.CodeInvalidRequest,
				fmt.Sprintf("frame exceeds STEERABLE_MAX_FRAME_BYTES (%d bytes) and was discarded", s.maxFrame)})
			continue
		case errors.Is(err, errBadHeader):
			s.reject(&frameError{nullID, protocol.CodeInvalidRequest, errBadHeader.Error()})
			continue
		case err != nil:
			if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) && !errors.Is(err, io.ErrClosedPipe) {
				s.log.Warn().Err(err).Msg("reading stdin failed; treating it as end of input")
			}
			s.eofOnce.Do(func() { close(s.eof) })
			<-s.closed
			return io.EOF
		}
		if len(bytes.TrimSpace(frame)) == 0 {
			continue
		}
		if fe := checkFrame(frame); fe != nil {
			s.reject(fe)
			continue
		}
		if err := json.Unmarshal(frame, v); err != nil {
			s.reject(&frameError{nullID, protocol.CodeInvalidRequest, fmt.Sprintf("invalid request: %v", err)})
			continue
		}
		return nil
	}
}

func (s *stream) reject(fe *frameError) {
	s.log.Warn().Int64("code", int64(fe.code)).Str("error", fe.msg).Msg("bad frame answered and skipped")
	_ = s.writeFrame(errorFrame(fe))
}

func (s *stream) next() ([]byte, error) {
	if s.framing == FramingContentLength {
		return s.readContentLength()
	}
	return s.readLine()
}

// readLine reads one newline-terminated frame of at most maxFrame bytes; a
// longer one is discarded through its newline.
func (s *stream) readLine() ([]byte, error) {
	var buf []byte
	for {
		chunk, err := s.in.ReadSlice('\n')
		if len(buf)+len(chunk) > s.maxFrame+1 {
			if errors.Is(err, bufio.ErrBufferFull) {
				s.discardLine()
			}
			return nil, errFrameTooLarge
		}
		buf = append(buf, chunk...)
		switch {
		case err == nil:
			return buf, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(buf) > 0:
			return buf, nil // a last frame without its newline
		default:
			return nil, err
		}
	}
}

func (s *stream) discardLine() {
	for {
		if _, err := s.in.ReadSlice('\n'); !errors.Is(err, bufio.ErrBufferFull) {
			return
		}
	}
}

// readContentLength reads one LSP-style frame: headers, a blank line, then
// exactly Content-Length bytes.
func (s *stream) readContentLength() ([]byte, error) {
	length, sawHeader := -1, false
	for {
		line, err := s.readLineLimited(maxHeaderLine)
		if err != nil {
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if !sawHeader {
				continue // stray blank lines between frames
			}
			break
		}
		sawHeader = true
		name, val, ok := strings.Cut(line, ":")
		if ok && strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(val))
			if err != nil || n < 0 {
				n = -1
			}
			length = n
		}
	}
	if length < 0 {
		return nil, errBadHeader
	}
	if length > s.maxFrame {
		if _, err := io.CopyN(io.Discard, s.in, int64(length)); err != nil {
			return nil, err
		}
		return nil, errFrameTooLarge
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(s.in, body); err != nil {
		return nil, err
	}
	return body, nil
}

func (s *stream) readLineLimited(limit int) (string, error) {
	var buf []byte
	for {
		chunk, err := s.in.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > limit {
			if errors.Is(err, bufio.ErrBufferFull) {
				s.discardLine()
			}
			return "", errBadHeader
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			if err != nil {
				return "", err
			}
			return string(buf), nil
		}
	}
}

// WriteObject implements jsonrpc2.ObjectStream.
func (s *stream) WriteObject(obj any) error {
	var b []byte
	var err error
	if m, ok := obj.(json.Marshaler); ok {
		b, err = m.MarshalJSON() // already compact; skip a second pass
	} else {
		b, err = json.Marshal(obj)
	}
	if err != nil {
		return err
	}
	return s.writeFrame(b)
}

// writeFrame writes one compact JSON frame and returns once it is written
// (or writing failed). json.Marshal never emits a raw newline, so a frame
// is always exactly one line.
func (s *stream) writeFrame(b []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.werr != nil {
		return s.werr
	}
	if s.framing == FramingContentLength {
		if err := (jsonrpc2.VSCodeObjectCodec{}).WriteObject(&s.pending, json.RawMessage(b)); err != nil {
			return err
		}
	} else {
		s.pending.Write(b)
		s.pending.WriteByte('\n')
	}
	s.queued++
	mine := s.queued
	if !s.flushing {
		s.flush()
	}
	for s.written < mine && s.werr == nil {
		s.wcond.Wait()
	}
	if s.written >= mine {
		return nil
	}
	return s.werr
}

// flush writes pending batches until none is left; called with wmu held,
// it releases the lock around each write.
func (s *stream) flush() {
	s.flushing = true
	for s.pending.Len() > 0 && s.werr == nil {
		upto := s.queued
		s.pending, s.spare = s.spare, s.pending
		s.pending.Reset()
		s.wmu.Unlock()
		_, err := s.out.Write(s.spare.Bytes())
		s.wmu.Lock()
		if err != nil {
			s.werr = err
			if s.onWriteError != nil {
				go s.onWriteError(err)
			}
		} else {
			s.written = upto
		}
		s.wcond.Broadcast()
	}
	s.flushing = false
}

// Close releases ReadObject (which then returns io.EOF) and closes the
// input. Output is left open: the process is about to exit.
func (s *stream) Close() error {
	s.closeOnce.Do(func() {
		close(s.closed)
		if s.inCloser != nil {
			s.inCloser.Close()
		}
	})
	return nil
}

var _ jsonrpc2.ObjectStream = (*stream)(nil)
