package runcode

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// frameReader splits the child's fd 3 into lines of at most max bytes. A
// longer line is an error, not something to skip: a child that breaks the
// framing cannot be trusted with the rest of the stream.
type frameReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

// readBuffer is the reader's buffer; most frames (a call of read_file) fit
// in one read.
const readBuffer = 64 << 10

func newFrameReader(r io.Reader, max int) *frameReader {
	return &frameReader{r: bufio.NewReaderSize(r, readBuffer), max: max}
}

// ErrFrameTooLarge is a child frame over the bridge's frame limit.
var ErrFrameTooLarge = errors.New("bridge frame too large")

// next returns the next line without its newline. It is valid until the
// following call. io.EOF at a clean end; io.ErrUnexpectedEOF when the
// stream ends inside a line.
func (f *frameReader) next() ([]byte, error) {
	f.buf = f.buf[:0]
	for {
		chunk, err := f.r.ReadSlice('\n')
		if len(f.buf)+len(chunk) > f.max+1 { // +1: the newline
			return nil, fmt.Errorf("%w: over %d bytes", ErrFrameTooLarge, f.max)
		}
		switch {
		case err == nil:
			if len(f.buf) == 0 {
				return chunk[:len(chunk)-1], nil // no copy for a frame within the buffer
			}
			f.buf = append(f.buf, chunk[:len(chunk)-1]...)
			return f.buf, nil
		case errors.Is(err, bufio.ErrBufferFull):
			f.buf = append(f.buf, chunk...)
		case errors.Is(err, io.EOF) && len(f.buf)+len(chunk) > 0:
			return nil, io.ErrUnexpectedEOF
		default:
			return nil, err
		}
	}
}
