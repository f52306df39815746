package plugins

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// Bounds of a server's stderr in the sidecar's log.
const (
	stderrLineMax  = 2 << 10 // longer lines are clipped
	stderrTailMax  = 4 << 10 // kept for error messages
	stderrQueue    = 256     // lines waiting for the logger
	stderrBurst    = 200     // lines logged in a burst, then…
	stderrPerSec   = 50      // …this many per second
	dropReportTick = 5 * time.Second
)

// stderrLog drains a server's stderr: each line goes to the sidecar's log
// tagged with the plugin's name, and the last few KiB are kept for the
// message of a failed start. The server's MCP log messages
// (notifications/message) join the same queue, from the SDK's goroutines,
// so the queue is never closed: the reader's end of input is signalled on
// eof instead. Reading never waits for the logger: lines
// beyond the queue or the rate are counted and reported, so a chatty or
// hostile server can neither block itself on a full pipe nor flood the log.
type stderrLog struct {
	log   zerolog.Logger
	lines chan string
	rate  *tokenBucket
	eof   chan struct{} // closed when stderr reached its end
	done  chan struct{} // closed when the writer has logged what was queued

	mu      sync.Mutex
	tail    []byte
	dropped int
}

// drainStderr starts reading r; Tail and Close are safe to call at any time.
func drainStderr(r io.Reader, log zerolog.Logger) *stderrLog {
	s := &stderrLog{log: log, lines: make(chan string, stderrQueue),
		rate: newTokenBucket(stderrBurst, stderrPerSec), eof: make(chan struct{}), done: make(chan struct{})}
	go s.read(r)
	go s.write()
	return s
}

func (s *stderrLog) read(r io.Reader) {
	defer close(s.eof)
	br := bufio.NewReaderSize(r, stderrLineMax)
	for {
		line, err := br.ReadSlice('\n')
		s.keep(line)
		if text := strings.TrimRight(string(line), "\r\n"); text != "" {
			s.queue(text)
		}
		for errors.Is(err, bufio.ErrBufferFull) { // the rest of a long line: kept, not logged
			line, err = br.ReadSlice('\n')
			s.keep(line)
		}
		if err != nil {
			return
		}
	}
}

func (s *stderrLog) keep(b []byte) {
	s.mu.Lock()
	s.tail = append(s.tail, b...)
	if len(s.tail) > stderrTailMax {
		s.tail = append(s.tail[:0], s.tail[len(s.tail)-stderrTailMax:]...)
	}
	s.mu.Unlock()
}

func (s *stderrLog) queue(text string) {
	if s.rate.take() {
		select {
		case s.lines <- text:
			return
		default:
		}
	}
	s.mu.Lock()
	s.dropped++
	s.mu.Unlock()
}

func (s *stderrLog) write() {
	defer close(s.done)
	t := time.NewTicker(dropReportTick)
	defer t.Stop()
	for {
		select {
		case line := <-s.lines:
			s.logLine(line)
		case <-t.C:
			s.reportDropped()
		case <-s.eof:
			for {
				select {
				case line := <-s.lines:
					s.logLine(line)
				default:
					s.reportDropped()
					return
				}
			}
		}
	}
}

func (s *stderrLog) logLine(line string) {
	s.log.Info().Str("stderr", line).Msg("plugin stderr")
}

func (s *stderrLog) reportDropped() {
	s.mu.Lock()
	n := s.dropped
	s.dropped = 0
	s.mu.Unlock()
	if n > 0 {
		s.log.Warn().Int("lines", n).Msg("plugin stderr lines not logged (rate or queue limit)")
	}
}

// Tail is the last few KiB the server wrote to stderr, trimmed.
func (s *stderrLog) Tail() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := bytes.TrimSpace(s.tail)
	return strings.ToValidUTF8(string(t), "�")
}

// Wait waits until stderr reached EOF and every queued line was logged,
// at most d: a server's child may keep the pipe open.
func (s *stderrLog) Wait(d time.Duration) {
	select {
	case <-s.done:
	case <-time.After(d):
	}
}
