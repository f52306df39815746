package benchkit

import (
	"bufio"
	"encoding/json"
	"fmt"
)

// Send writes n copies of a request without waiting for any reply; their
// replies are skipped by later calls like any reply to another id.
func (p *Proc) Send(n int, method string, params any) error {
	req, err := newRequest(method, params)
	if err != nil {
		return err
	}
	for range n {
		if _, err := p.send(req); err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
	}
	return nil
}

// Flood writes n copies of a request as fast as the pipe takes them, with
// no window (a host that never waits), while reading replies, and returns
// how many of its n replies carried each error code (0: a result). Replies
// to earlier requests are skipped.
func (p *Proc) Flood(n int, method string, params any) (map[int]int, error) {
	req, err := newRequest(method, params)
	if err != nil {
		return nil, err
	}
	first := p.lastID + 1
	p.lastID += n
	wrote := make(chan error, 1)
	go func() {
		w := bufio.NewWriterSize(p.in, 1<<20)
		var frame []byte
		for id := first; id < first+n; id++ {
			frame = appendCall(frame[:0], id, req)
			if _, err := w.Write(frame); err != nil {
				wrote <- err
				return
			}
		}
		wrote <- w.Flush()
	}()
	codes := map[int]int{}
	for got := 0; got < n; {
		line, err := p.readLine()
		if err != nil {
			return codes, fmt.Errorf("%s: %d of %d replies: %w", method, got, n, err)
		}
		h, ok := peek(line)
		if !ok || h.kind() != reply || *h.ID < first || *h.ID >= first+n {
			continue
		}
		got++
		var m struct {
			Error *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		if json.Unmarshal(line, &m) == nil && m.Error != nil {
			codes[m.Error.Code]++
		} else {
			codes[0]++
		}
	}
	return codes, <-wrote
}
