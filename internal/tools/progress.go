package tools

import (
	"context"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"

	"steerable.dev/sidecar/protocol"
)

// Live output reaches the host as tool.progress notifications, batched so a
// command that prints fast cannot flood the connection: per stream at most
// one notification per progressInterval, of at most progressMaxChunk bytes.
// Bytes beyond that are left out of the live view (the result still carries
// the head and tail of everything) and a marker says how many.
const (
	progressInterval = 100 * time.Millisecond
	progressMaxChunk = 16 << 10
)

// progress batches one call's output into tool.progress notifications.
type progress struct {
	host      Host
	callID    string
	sessionID string // a shell session's output (bash_session, write_stdin)

	mu      sync.Mutex
	pending map[string]*progressBuf // by stream, in progressStreams order
	stop    chan struct{}
	done    chan struct{}
}

var progressStreams = []string{"stdout", "stderr"}

type progressBuf struct {
	buf     []byte
	dropped int64
}

// startProgress starts the flusher; Close must be called.
func startProgress(host Host, callID string) *progress {
	p := &progress{host: host, callID: callID, pending: map[string]*progressBuf{},
		stop: make(chan struct{}), done: make(chan struct{})}
	for _, s := range progressStreams {
		p.pending[s] = &progressBuf{}
	}
	go p.loop()
	return p
}

// Write queues chunk of stream; it never blocks on the host.
func (p *progress) Write(stream string, chunk []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	b := p.pending[stream]
	n := min(len(chunk), progressMaxChunk-len(b.buf))
	b.buf = append(b.buf, chunk[:n]...)
	b.dropped += int64(len(chunk) - n)
}

// WriteSession queues a chunk of a shell session's terminal output: a
// terminal merges both streams, so it goes out as stdout with the
// session's id.
func (p *progress) WriteSession(sessionID string, chunk []byte) {
	p.mu.Lock()
	p.sessionID = sessionID
	p.mu.Unlock()
	p.Write("stdout", chunk)
}

func (p *progress) loop() {
	defer close(p.done)
	t := time.NewTicker(progressInterval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			p.flush(false)
		case <-p.stop:
			p.flush(true)
			return
		}
	}
}

// Close sends what is pending and stops the flusher, so every notification
// of a call precedes its result.
func (p *progress) Close() {
	close(p.stop)
	<-p.done
}

func (p *progress) flush(final bool) {
	for _, s := range progressStreams {
		p.mu.Lock()
		b := p.pending[s]
		chunk := b.buf
		if !final { // hold back a character split across reads
			chunk = chunk[:len(chunk)-partialRuneLen(chunk)]
		}
		text := string(chunk)
		if b.dropped > 0 {
			text += fmt.Sprintf("\n...[%d bytes not streamed; the result keeps the head and tail]...\n", b.dropped)
		}
		b.buf, b.dropped = append(b.buf[:0:0], b.buf[len(chunk):]...), 0
		session := p.sessionID
		p.mu.Unlock()
		if text != "" {
			p.host.Progress(context.Background(), protocol.ToolProgressParams{CallID: p.callID, SessionID: session, Stream: s, Chunk: text})
		}
	}
}

// partialRuneLen is the length of an incomplete UTF-8 sequence ending b.
func partialRuneLen(b []byte) int {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if utf8.FullRune(b[len(b)-i:]) {
				return 0
			}
			return i
		}
	}
	return 0
}
