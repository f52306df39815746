package benchkit

import (
	"bufio"
	"fmt"
	"time"
)

// RoundTrips sends n copies of one request, one at a time, and returns each
// round trip: from just before the frame is written to the moment its reply
// has been read. The request is encoded before the first clock starts.
func (p *Proc) RoundTrips(n int, method string, params any) ([]time.Duration, error) {
	req, err := newRequest(method, params)
	if err != nil {
		return nil, err
	}
	out := make([]time.Duration, 0, n)
	for range n {
		t0 := time.Now()
		id, err := p.send(req)
		if err != nil {
			return out, fmt.Errorf("%s: %w", method, err)
		}
		line, _, err := p.await(method, id, false)
		if err != nil {
			return out, err
		}
		out = append(out, time.Since(t0))
		m, _ := decode(line) // await has parsed it
		if _, err := m.outcome(); err != nil {
			return out, fmt.Errorf("%s: %w", method, err)
		}
	}
	return out, nil
}

// Pipelined sends n copies of one request keeping window of them in flight,
// and returns the replies per second. One writer buffers frames and flushes
// only when the window is full (or at the end); one reader counts replies
// and frees a slot per reply, so the figure is the server's throughput over
// the pipe, not the client's write pattern.
// After an error the Proc is unusable: close it.
func (p *Proc) Pipelined(n, window int, method string, params any) (float64, error) {
	req, err := newRequest(method, params)
	if err != nil {
		return 0, err
	}
	slots := make(chan struct{}, window)
	read := make(chan error, 1)
	go func() { read <- p.countReplies(n, slots) }()
	t0 := time.Now()
	w := bufio.NewWriter(p.in)
	for range n {
		select {
		case slots <- struct{}{}:
		default:
			if err := w.Flush(); err != nil {
				return 0, fmt.Errorf("%s: %w", method, err)
			}
			select {
			case slots <- struct{}{}:
			case err := <-read: // the reader stopped before n replies
				return 0, fmt.Errorf("%s: %w", method, err)
			}
		}
		p.lastID++
		p.frame = appendCall(p.frame[:0], p.lastID, req)
		w.Write(p.frame)
	}
	if err := w.Flush(); err != nil {
		return 0, fmt.Errorf("%s: %w", method, err)
	}
	if err := <-read; err != nil {
		return 0, fmt.Errorf("%s: %w", method, err)
	}
	return float64(n) / time.Since(t0).Seconds(), nil
}

// countReplies reads until n replies have arrived, freeing a slot for each.
func (p *Proc) countReplies(n int, slots <-chan struct{}) error {
	for got := 0; got < n; {
		line, err := p.readLine()
		if err != nil {
			return err
		}
		if h, ok := peek(line); ok && h.kind() == reply {
			got++
			<-slots
		}
	}
	return nil
}
