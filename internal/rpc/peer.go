package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

// Peer is the sidecar's side of the reverse channel: requests to the host
// with ids "srv_1", "srv_2", … and notifications. It exists before the
// connection (tools are built with it) and is bound when Serve starts.
//
// A reverse call ends in exactly one of: the host's result; the host's error
// (as *protocol.Error); an error saying the host's reply was malformed (any
// reply carrying the call's id ends it, well-formed or not); tools.ErrHostGone
// when there is no host, the host closed its input or a write failed; or
// ctx.Err(). A call whose ctx ends first also tells the host with
// $/cancelRequest, so it can close a dialog nobody waits for.
type Peer struct {
	mu       sync.Mutex
	st       *stream
	pending  map[string]chan hostReply // by id key
	gone     chan struct{}
	goneOnce sync.Once
	seq      atomic.Uint64
	log      zerolog.Logger
}

// hostReply is how a reverse call ended on the host's side.
type hostReply struct {
	result json.RawMessage
	err    error
}

// NewPeer returns an unbound peer; calls fail with tools.ErrHostGone until
// Serve binds it.
func NewPeer(log zerolog.Logger) *Peer {
	return &Peer{gone: make(chan struct{}), pending: map[string]chan hostReply{}, log: log}
}

func (p *Peer) bind(st *stream) {
	p.mu.Lock()
	p.st = st
	p.mu.Unlock()
}

// hostGone fails every pending and future call: the host can no longer
// answer.
func (p *Peer) hostGone() {
	p.goneOnce.Do(func() { close(p.gone) })
}

func (p *Peer) stream() *stream {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.st
}

// Call implements tools.Host.
func (p *Peer) Call(ctx context.Context, method string, params, result any) error {
	st := p.stream()
	if st == nil {
		return fmt.Errorf("%s: %w", method, tools.ErrHostGone)
	}
	select {
	case <-p.gone:
		return fmt.Errorf("%s: %w (it closed its input)", method, tools.ErrHostGone)
	default:
	}
	id := newID(json.RawMessage(strconv.Quote("srv_" + strconv.FormatUint(p.seq.Add(1), 10))))
	frame, err := appendRequest(nil, id.raw, method, params)
	if err != nil {
		return fmt.Errorf("%s: params do not marshal: %w", method, err)
	}
	ch := make(chan hostReply, 1)
	p.mu.Lock()
	p.pending[id.key] = ch // before the write: the reply may come at once
	p.mu.Unlock()
	defer p.forget(id.key)
	if err := st.writeFrame(frame); err != nil {
		return fmt.Errorf("%s: %w (%v)", method, tools.ErrHostGone, err)
	}
	select {
	case r := <-ch:
		return decodeReply(method, r, result)
	case <-ctx.Done():
		p.cancelRemote(st, id)
		return ctx.Err()
	case <-p.gone:
		return fmt.Errorf("%s: %w", method, tools.ErrHostGone)
	}
}

func (p *Peer) forget(key string) {
	p.mu.Lock()
	delete(p.pending, key)
	p.mu.Unlock()
}

func decodeReply(method string, r hostReply, result any) error {
	if r.err != nil {
		return r.err
	}
	if result != nil {
		if err := json.Unmarshal(r.result, result); err != nil {
			return fmt.Errorf("%s: the host replied with a malformed result: %w", method, err)
		}
	}
	return nil
}

// deliver routes a response frame to the reverse call with its id. A reply
// nobody waits for — an id never sent, or a call already over — is logged
// and dropped.
func (p *Peer) deliver(msg message) {
	r := hostReply{result: msg.result}
	if msg.err != nil {
		r.err = fromWire(msg.err)
	}
	p.end(msg.id, r)
}

// malformed ends the reverse call a malformed reply names: the host failed
// to answer it.
func (p *Peer) malformed(msg message, why string) {
	p.end(msg.id, hostReply{err: fmt.Errorf("the host sent a malformed reply (%s)", why)})
}

func (p *Peer) end(id requestID, r hostReply) {
	p.mu.Lock()
	ch, ok := p.pending[id.key]
	delete(p.pending, id.key)
	p.mu.Unlock()
	if ok {
		ch <- r
		return
	}
	p.log.Warn().RawJSON("id", id.raw).Msg("response matches no pending reverse call (" + p.why(id) + "); ignored")
}

// why says why no call waits for id.
func (p *Peer) why(id requestID) string {
	if n, err := strconv.ParseUint(strings.TrimPrefix(id.key, "ssrv_"), 10, 64); err == nil && strings.HasPrefix(id.key, "ssrv_") && n >= 1 && n <= p.seq.Load() {
		return "that call is already over"
	}
	return "the sidecar never sent that id"
}

func (p *Peer) cancelRemote(st *stream, id requestID) {
	frame, _ := appendRequest(nil, nil, protocol.NotificationCancel, protocol.CancelParams{ID: id.raw})
	if err := st.writeFrame(frame); err != nil {
		p.log.Debug().Err(err).Msg("could not tell the host a reverse call was abandoned")
	}
}

// Notify implements tools.Host. Without a host the notification is dropped.
func (p *Peer) Notify(_ context.Context, method string, params any) error {
	st := p.stream()
	if st == nil {
		return nil
	}
	frame, err := appendRequest(nil, nil, method, params)
	if err != nil {
		return fmt.Errorf("%s: params do not marshal: %w", method, err)
	}
	return st.writeFrame(frame)
}

var _ tools.Host = (*Peer)(nil)
