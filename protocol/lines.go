package protocol

import (
	"bufio"
	"errors"
	"io"
)

// ErrFrameTooLarge is a line longer than the frame limit; ReadLine has read
// and discarded it through its newline, so the next frame can be read.
var ErrFrameTooLarge = errors.New("frame too large")

// ReadLine reads one newline-delimited frame of at most max bytes from in,
// newline included. A longer line is discarded through its newline and
// reported as ErrFrameTooLarge; a last line without a newline is still a
// frame. Both servers (the JSON-RPC one and MCP mode) read their frames
// with it.
func ReadLine(in *bufio.Reader, max int) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := in.ReadSlice('\n')
		if len(buf)+len(chunk) > max+1 {
			if errors.Is(err, bufio.ErrBufferFull) {
				DiscardLine(in)
			}
			return nil, ErrFrameTooLarge
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

// DiscardLine reads and drops the rest of the current line.
func DiscardLine(in *bufio.Reader) {
	for {
		if _, err := in.ReadSlice('\n'); !errors.Is(err, bufio.ErrBufferFull) {
			return
		}
	}
}
