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
	"steerable.dev/sidecar/internal/wire"
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
	out      *wire.Writer
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

func (p *Peer) bind(out *wire.Writer) {
	p.mu.Lock()
	p.out = out
	p.mu.Unlock()
}

// hostGone fails every pending and future call: the host can no longer
// answer.
func (p *Peer) hostGone() {
	p.goneOnce.Do(func() { close(p.gone) })
}

func (p *Peer) writer() *wire.Writer {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out
}

// Call sends the reverse request method and decodes the host's result into
// result (nil: ignore it). The typed methods of tools.Host (host.go) are
// built on it; it is exported for test tools that send arbitrary methods.
func (p *Peer) Call(ctx context.Context, method string, params, result any) error {
	out := p.writer()
	if out == nil {
		return fmt.Errorf("%s: %w", method, tools.ErrHostGone)
	}
	select {
	case <-p.gone:
		return fmt.Errorf("%s: %w (it closed its input)", method, tools.ErrHostGone)
	default:
	}
	id := wire.StringID("srv_" + strconv.FormatUint(p.seq.Add(1), 10))
	frame, err := wire.AppendRequest(nil, id.Raw, method, params)
	if err != nil {
		return fmt.Errorf("%s: params do not marshal: %w", method, err)
	}
	ch := make(chan hostReply, 1)
	p.mu.Lock()
	p.pending[id.Key] = ch // before the write: the reply may come at once
	p.mu.Unlock()
	defer p.forget(id.Key)
	if err := out.SendCtx(ctx, frame); err != nil {
		if ctx.Err() != nil {
			return ctx.Err() // stdout is full: the host is not reading it
		}
		return fmt.Errorf("%s: %w (%v)", method, tools.ErrHostGone, err)
	}
	select {
	case r := <-ch:
		return decodeReply(method, r, result)
	case <-ctx.Done():
		p.cancelRemote(out, id)
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
func (p *Peer) deliver(msg wire.Message) {
	r := hostReply{result: msg.Result}
	if msg.Error != nil {
		r.err = fromWire(msg.Error)
	}
	p.end(msg.ID, r)
}

// malformed ends the reverse call a malformed reply names: the host failed
// to answer it.
func (p *Peer) malformed(msg wire.Message, why string) {
	p.end(msg.ID, hostReply{err: fmt.Errorf("the host sent a malformed reply (%s)", why)})
}

func (p *Peer) end(id wire.ID, r hostReply) {
	p.mu.Lock()
	ch, ok := p.pending[id.Key]
	delete(p.pending, id.Key)
	p.mu.Unlock()
	if ok {
		ch <- r
		return
	}
	p.log.Warn().RawJSON("id", id.Raw).Msg("response matches no pending reverse call (" + p.why(id) + "); ignored")
}

// why says why no call waits for id.
func (p *Peer) why(id wire.ID) string {
	if n, err := strconv.ParseUint(strings.TrimPrefix(id.Key, "ssrv_"), 10, 64); err == nil && strings.HasPrefix(id.Key, "ssrv_") && n >= 1 && n <= p.seq.Load() {
		return "that call is already over"
	}
	return "the sidecar never sent that id"
}

// cancelRemote tells the host a reverse call was abandoned, if stdout has
// room: the call is over either way.
func (p *Peer) cancelRemote(out *wire.Writer, id wire.ID) {
	frame, _ := wire.AppendRequest(nil, nil, protocol.NotificationCancel, protocol.CancelParams{ID: id.Raw})
	if !out.TrySend(frame) {
		p.log.Debug().Msg("could not tell the host a reverse call was abandoned: stdout is full or closed")
	}
}

// notify sends a notification, waiting for room on stdout only as long as
// ctx. Without a host it is dropped.
func (p *Peer) notify(ctx context.Context, method string, params any) error {
	out := p.writer()
	if out == nil {
		return nil
	}
	frame, err := wire.AppendRequest(nil, nil, method, params)
	if err != nil {
		return fmt.Errorf("%s: params do not marshal: %w", method, err)
	}
	return out.SendCtx(ctx, frame)
}

// tryNotify sends a notification only if stdout has room: when it is full
// the notification is dropped and counted (system.ping's
// droppedNotifications).
func (p *Peer) tryNotify(method string, params any) {
	out := p.writer()
	if out == nil {
		return
	}
	if frame, err := wire.AppendRequest(nil, nil, method, params); err == nil {
		out.TrySend(frame)
	}
}
