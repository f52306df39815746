package rpc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/rs/zerolog"

	"steerable.dev/sidecar/protocol"
)

// Framings of SPEC §1.
const (
	FramingNewline       = "newline"
	FramingContentLength = "content-length"
)

var (
	errFrameTooLarge = protocol.ErrFrameTooLarge
	errBadHeader     = errors.New("missing or invalid Content-Length header")
)

// maxHeaderLine bounds one Content-Length header line.
const maxHeaderLine = 4096

// stream is the framing under the connection: it reads one frame at a time
// (newline or Content-Length), discarding oversized ones, and writes frames
// serialised, reporting the first write error once.
type stream struct {
	in       *bufio.Reader // over a batchReader: queued frames go out before each read(2)
	inCloser io.Closer
	// reads counts the reads from the input (the read loop's only): the
	// frames parsed while it is n all arrived before read n+1 started.
	reads    uint64
	out      io.Writer
	framing  string
	maxFrame int
	log      zerolog.Logger

	// Writes are group-committed: a writer appends its frame to pending and
	// either becomes the flusher (one write syscall for every frame queued
	// meanwhile) or leaves it to the flusher at work: writeFrame then waits
	// until its frame is written, sendFrame does not. Under load this turns
	// many small writes into few; idle, it is one write per frame with no
	// added latency. The read loop only queues (queueFrame): what it
	// answers goes out in one write before it next reads the input, or
	// waits (flushQueued), or once flushAt bytes are pending.
	wmu      sync.Mutex
	wcond    *sync.Cond
	pending  bytes.Buffer
	spare    bytes.Buffer
	queued   uint64 // frames appended
	written  uint64 // frames written
	flushing bool
	werr     error

	closeOnce sync.Once

	onWriteError func(error)
}

func newStream(in io.Reader, out io.Writer, framing string, maxFrame int, log zerolog.Logger) *stream {
	s := &stream{
		out:      out,
		framing:  framing,
		maxFrame: maxFrame,
		log:      log,
	}
	if c, ok := in.(io.Closer); ok {
		s.inCloser = c
	}
	s.in = bufio.NewReaderSize(batchReader{s, in}, 64<<10)
	s.wcond = sync.NewCond(&s.wmu)
	return s
}

// batchReader is the stream's input: before each read, which may block,
// it writes what the read loop has queued, so a batch of frames read
// together is answered with one write and no answer waits for more input.
type batchReader struct {
	s  *stream
	in io.Reader
}

func (r batchReader) Read(p []byte) (int, error) {
	r.s.flushQueued()
	n, err := r.in.Read(p)
	r.s.reads++
	return n, err
}

// read returns the next frame's bytes (possibly blank), answering and
// skipping frames that cannot be read whole: oversized ones and
// Content-Length blocks without a length. Its error is the input's: the
// connection ends there.
func (s *stream) read() ([]byte, error) {
	for {
		frame, err := s.next()
		switch {
		case errors.Is(err, errFrameTooLarge):
			s.reject(&frameError{nullID, protocol.CodeInvalidRequest,
				fmt.Sprintf("frame exceeds STEERABLE_MAX_FRAME_BYTES (%d bytes) and was discarded", s.maxFrame)})
		case errors.Is(err, errBadHeader):
			s.reject(&frameError{nullID, protocol.CodeInvalidRequest, errBadHeader.Error()})
		default:
			return frame, err
		}
	}
}

// reject answers a frame that cannot be served and logs it; the read loop
// calls it, so the answer is queued.
func (s *stream) reject(fe *frameError) {
	s.log.Warn().Int64("code", int64(fe.code)).Str("error", fe.msg).Msg("bad frame answered and skipped")
	s.queueFrame(errorFrame(fe))
}

func (s *stream) next() ([]byte, error) {
	if s.framing == FramingContentLength {
		return s.readContentLength()
	}
	return protocol.ReadLine(s.in, s.maxFrame)
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
				protocol.DiscardLine(s.in)
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

// writeFrame writes one compact JSON frame and returns once it is written
// (or writing failed). json.Marshal never emits a raw newline, so a frame
// is always exactly one line.
func (s *stream) writeFrame(b []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.werr != nil {
		return s.werr
	}
	mine := s.append(b)
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

// sendFrame writes one frame like writeFrame, but when another writer is
// flushing it leaves the frame to that writer and returns at once: a reply
// is not worth a goroutine's wait (a failed write ends the session through
// onWriteError anyway).
func (s *stream) sendFrame(b []byte) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.werr != nil {
		return
	}
	s.append(b)
	if !s.flushing {
		s.flush()
	}
}

// flushAt is how much the read loop lets pending grow before it writes.
const flushAt = 64 << 10

// queueFrame queues a frame from the read loop without writing it: it goes
// out with the rest of its batch before the next read (batchReader).
func (s *stream) queueFrame(b []byte) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.werr != nil {
		return
	}
	s.append(b)
	if s.pending.Len() >= flushAt && !s.flushing {
		s.flush()
	}
}

// flushQueued writes what is queued, unless a writer is at it already (it
// writes until nothing is pending). The read loop calls it before it may
// block.
func (s *stream) flushQueued() {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.pending.Len() > 0 && !s.flushing && s.werr == nil {
		s.flush()
	}
}

// append adds a frame to pending and returns its number. Called with wmu
// held.
func (s *stream) append(b []byte) uint64 {
	if s.framing == FramingContentLength {
		s.pending.WriteString("Content-Length: ")
		s.pending.WriteString(strconv.Itoa(len(b)))
		s.pending.WriteString("\r\n\r\n")
		s.pending.Write(b)
	} else {
		s.pending.Write(b)
		s.pending.WriteByte('\n')
	}
	s.queued++
	return s.queued
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

// Close closes the input, which ends a read in progress. Output is left
// open: the process is about to exit.
func (s *stream) Close() error {
	s.closeOnce.Do(func() {
		if s.inCloser != nil {
			s.inCloser.Close()
		}
	})
	return nil
}
