package wire

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Framings of SPEC §1.
const (
	FramingNewline       = "newline"
	FramingContentLength = "content-length"
)

// ErrBadHeader is a Content-Length block without a usable length; the
// block is skipped.
var ErrBadHeader = errors.New("missing or invalid Content-Length header")

// TooLargeError is a frame over the reader's limit. The frame was read
// through and discarded; ID is its id when it could be recovered from the
// frame's head or tail (nil when not), so its sender still gets an answer.
type TooLargeError struct {
	Size  int64  // bytes the frame had
	Limit int    // the reader's limit
	Name  string // what sets the limit ("STEERABLE_MAX_FRAME_BYTES")
	ID    []byte // the frame's id, raw, or nil
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("frame of %d bytes exceeds the %d-byte frame limit (%s) and was discarded", e.Size, e.Limit, e.Name)
}

// maxHeaderLine bounds one Content-Length header line.
const maxHeaderLine = 4096

// Reader reads frames of at most a limit from a byte stream.
type Reader struct {
	in        *bufio.Reader
	framing   string
	max       int
	limitName string
	// reads counts the reads from the input: the frames read while it is n
	// all arrived before read n+1 started.
	reads uint64
	// beforeRead runs before each read of the input, which may block (a
	// server writes the answers it queued).
	beforeRead func()
}

// NewReader reads framing (FramingNewline or FramingContentLength) frames
// of at most max bytes from in; limitName is what sets max, for the
// oversize error. beforeRead, if set, runs before every read of in.
func NewReader(in io.Reader, framing string, max int, limitName string, beforeRead func()) *Reader {
	r := &Reader{framing: framing, max: max, limitName: limitName, beforeRead: beforeRead}
	r.in = bufio.NewReaderSize(countingReader{r, in}, 64<<10)
	return r
}

// countingReader counts the reads of the input and runs beforeRead first.
type countingReader struct {
	r  *Reader
	in io.Reader
}

func (c countingReader) Read(p []byte) (int, error) {
	if c.r.beforeRead != nil {
		c.r.beforeRead()
	}
	n, err := c.in.Read(p)
	c.r.reads++
	return n, err
}

// Reads is how many reads of the input have started: frames returned while
// it stays the same arrived together. Only the reading goroutine may call
// it.
func (r *Reader) Reads() uint64 { return r.reads }

// Next returns the next frame's bytes (possibly blank). An oversized frame
// is *TooLargeError and a Content-Length block without a length
// ErrBadHeader: both are skipped, and the next call reads on. Any other
// error is the input's, and ends it.
func (r *Reader) Next() ([]byte, error) {
	if r.framing == FramingContentLength {
		return r.readContentLength()
	}
	return r.readLine()
}

// headKeep and tailKeep are how much of an oversized frame is kept to find
// its id in: hosts write "id" near the start, a few near the end.
const (
	headKeep = 64 << 10
	tailKeep = 256
)

// readLine reads one newline-delimited frame, newline included; a last
// line without a newline is still a frame.
func (r *Reader) readLine() ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.in.ReadSlice('\n')
		if len(buf)+len(chunk) > r.max+1 {
			head := append(buf, chunk...)
			done := !errors.Is(err, bufio.ErrBufferFull)
			return nil, r.discard(head, done, func() ([]byte, bool) {
				c, err := r.in.ReadSlice('\n')
				return c, !errors.Is(err, bufio.ErrBufferFull)
			})
		}
		buf = append(buf, chunk...)
		switch {
		case err == nil:
			return buf, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(buf) > 0:
			return buf, nil
		default:
			return nil, err
		}
	}
}

// discard reads the rest of an oversized frame through next (which reports
// the frame's last chunk), keeping its head and tail, and returns the
// error that answers it.
func (r *Reader) discard(head []byte, done bool, next func() ([]byte, bool)) *TooLargeError {
	size := int64(len(head))
	tail := lastBytes(nil, head)
	if len(head) > headKeep {
		head = head[:headKeep:headKeep]
	}
	for !done {
		var chunk []byte
		chunk, done = next()
		size += int64(len(chunk))
		tail = lastBytes(tail, chunk)
	}
	return &TooLargeError{Size: size, Limit: r.max, Name: r.limitName, ID: RecoverID(head, tail)}
}

// lastBytes appends chunk to tail and keeps the last tailKeep bytes.
func lastBytes(tail, chunk []byte) []byte {
	if len(chunk) >= tailKeep {
		return append(tail[:0], chunk[len(chunk)-tailKeep:]...)
	}
	tail = append(tail, chunk...)
	if len(tail) > tailKeep {
		tail = append(tail[:0], tail[len(tail)-tailKeep:]...)
	}
	return tail
}

// readContentLength reads one LSP-style frame: headers, a blank line, then
// exactly Content-Length bytes.
func (r *Reader) readContentLength() ([]byte, error) {
	length, err := r.readHeaders()
	if err != nil {
		return nil, err
	}
	if length > int64(r.max) {
		return nil, r.discardBody(length)
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r.in, body); err != nil {
		return nil, err
	}
	return body, nil
}

// readHeaders reads a header block and returns its Content-Length.
func (r *Reader) readHeaders() (int64, error) {
	length, sawHeader := int64(-1), false
	for {
		line, err := r.readHeaderLine()
		if err != nil {
			return 0, err
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
			n, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
			if err != nil || n < 0 {
				n = -1
			}
			length = n
		}
	}
	if length < 0 {
		return 0, ErrBadHeader
	}
	return length, nil
}

// discardBody reads and drops an oversized body of length bytes, keeping
// its head and tail.
func (r *Reader) discardBody(length int64) error {
	head := make([]byte, min(length, headKeep))
	if _, err := io.ReadFull(r.in, head); err != nil {
		return err
	}
	rest := length - int64(len(head))
	var tail []byte
	if rest > tailKeep {
		if _, err := io.CopyN(io.Discard, r.in, rest-tailKeep); err != nil {
			return err
		}
		rest = tailKeep
	}
	if rest > 0 {
		tail = make([]byte, rest)
		if _, err := io.ReadFull(r.in, tail); err != nil {
			return err
		}
	} else {
		tail = lastBytes(nil, head)
	}
	return &TooLargeError{Size: length, Limit: r.max, Name: r.limitName, ID: RecoverID(head, tail)}
}

func (r *Reader) readHeaderLine() (string, error) {
	var buf []byte
	for {
		chunk, err := r.in.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > maxHeaderLine {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.in.ReadSlice('\n')
			}
			return "", ErrBadHeader
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			if err != nil {
				return "", err
			}
			return string(buf), nil
		}
	}
}
