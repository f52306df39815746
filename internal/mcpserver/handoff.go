package mcpserver

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"
)

// handoff carries encoded tools/call results from the server to its
// StreamTransport connection past the SDK. The SDK encodes every result with
// encoding/json, which re-validates (compacts) a Marshaler's output byte by
// byte: for a 4 KiB read_file, whose content the result holds twice, that
// was a fifth of the server's CPU per call. Instead the result given to the
// SDK marshals to a ticket, and the connection writes the held bytes in its
// place. Only a Server connected through a StreamTransport uses one: any
// other transport gets the result itself.
type handoff struct {
	mu   sync.Mutex
	next uint64
	held map[uint64][]byte
}

// ticketPrefix starts a ticket: no result the SDK encodes starts so (its
// results are structs whose members come in declaration order, none named
// so), and results are the server's own, never the client's bytes.
const ticketPrefix = `{"steerable.dev/handoff":`

func newHandoff() *handoff { return &handoff{held: map[uint64][]byte{}} }

// hold keeps b and returns the ticket that stands for it.
func (h *handoff) hold(b []byte) []byte {
	h.mu.Lock()
	h.next++
	n := h.next
	h.held[n] = b
	h.mu.Unlock()
	return append(strconv.AppendUint([]byte(ticketPrefix), n, 10), '}')
}

// take returns the bytes a ticket stands for and forgets them; result is
// returned unchanged when it is not a ticket.
func (h *handoff) take(result json.RawMessage) json.RawMessage {
	rest, ok := bytes.CutPrefix(result, []byte(ticketPrefix))
	if !ok || len(rest) < 2 || rest[len(rest)-1] != '}' {
		return result
	}
	n, err := strconv.ParseUint(string(rest[:len(rest)-1]), 10, 64)
	if err != nil {
		return result
	}
	h.mu.Lock()
	b, ok := h.held[n]
	delete(h.held, n)
	h.mu.Unlock()
	if !ok {
		return result
	}
	return b
}

// pending is how many results wait for the connection (a test's view).
func (h *handoff) pending() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.held)
}
