package benchkit

import (
	"encoding/json"
	"fmt"
	"time"
)

// Cancelled is how a request that was cancelled while it ran ended.
type Cancelled struct {
	Total time.Duration // from sending the request to its reply
	// Latency is from the $/cancelRequest to the reply; 0 when the reply
	// came before the cancel was due (nothing was cancelled).
	Latency time.Duration
	// Reply is the reply's result, or nil when it was an error (the
	// cancellation's -32800).
	Reply json.RawMessage
}

// CallCancel sends a request, cancels it with $/cancelRequest once after
// has passed, and waits up to wait for its reply. A child that does not
// answer by then is left mid-call: the caller must Close the Proc.
func (p *Proc) CallCancel(method string, params any, after, wait time.Duration) (Cancelled, error) {
	req, err := newRequest(method, params)
	if err != nil {
		return Cancelled{}, err
	}
	start := time.Now()
	id, err := p.send(req)
	if err != nil {
		return Cancelled{}, err
	}
	type answer struct {
		at  time.Time
		m   message
		err error
	}
	replied := make(chan answer, 1)
	go func() { // reads only p.out; the caller writes only p.in meanwhile
		_, m, err := p.await(method, id, true)
		replied <- answer{time.Now(), m, err}
	}()
	var c Cancelled
	var a answer
	select {
	case a = <-replied:
	case <-time.After(after):
		sent := time.Now()
		if err := p.Notify("$/cancelRequest", map[string]any{"id": id}); err != nil {
			return Cancelled{}, err
		}
		select {
		case a = <-replied:
		case <-time.After(wait):
			return Cancelled{}, fmt.Errorf("%s: no reply within %v of the cancel", method, wait)
		}
		c.Latency = a.at.Sub(sent)
	}
	if a.err != nil {
		return Cancelled{}, a.err
	}
	c.Total = a.at.Sub(start)
	if a.m.Error == nil {
		c.Reply = a.m.Result
	}
	return c, nil
}
