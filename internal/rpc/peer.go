package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/rs/zerolog"
	"github.com/sourcegraph/jsonrpc2"

	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

// Peer is the sidecar's side of the reverse channel: requests to the host
// with ids "srv_1", "srv_2", … and notifications. It exists before the
// connection (tools are built with it) and is bound when Serve starts.
//
// A reverse call ends in exactly one of: the host's result; the host's error
// (as *protocol.Error); tools.ErrHostGone when there is no host, the host
// closed its input or a write failed; or ctx.Err(). A call whose ctx ends
// first also tells the host with $/cancelRequest, so it can close a dialog
// nobody waits for.
type Peer struct {
	mu       sync.Mutex
	conn     *jsonrpc2.Conn
	gone     chan struct{}
	goneOnce sync.Once
	seq      atomic.Uint64
	log      zerolog.Logger
}

// NewPeer returns an unbound peer; calls fail with tools.ErrHostGone until
// Serve binds it.
func NewPeer(log zerolog.Logger) *Peer {
	return &Peer{gone: make(chan struct{}), log: log}
}

func (p *Peer) bind(conn *jsonrpc2.Conn) {
	p.mu.Lock()
	p.conn = conn
	p.mu.Unlock()
}

// hostGone fails every pending and future call: the host can no longer
// answer.
func (p *Peer) hostGone() {
	p.goneOnce.Do(func() { close(p.gone) })
}

func (p *Peer) current() *jsonrpc2.Conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.conn
}

// Call implements tools.Host.
func (p *Peer) Call(ctx context.Context, method string, params, result any) error {
	conn := p.current()
	if conn == nil {
		return fmt.Errorf("%s: %w", method, tools.ErrHostGone)
	}
	select {
	case <-p.gone:
		return fmt.Errorf("%s: %w (it closed its input)", method, tools.ErrHostGone)
	default:
	}
	id := jsonrpc2.ID{Str: "srv_" + strconv.FormatUint(p.seq.Add(1), 10), IsString: true}
	w, err := conn.DispatchCall(ctx, method, params, jsonrpc2.PickID(id))
	if err != nil {
		return fmt.Errorf("%s: %w (%v)", method, tools.ErrHostGone, err)
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-p.gone:
			cancel()
		case <-wctx.Done():
		}
	}()
	var raw json.RawMessage
	err = w.Wait(wctx, &raw)
	var je *jsonrpc2.Error
	switch {
	case err == nil:
		if result != nil {
			if err := json.Unmarshal(raw, result); err != nil {
				return fmt.Errorf("%s: the host replied with a malformed result: %w", method, err)
			}
		}
		return nil
	case errors.As(err, &je):
		return fromWire(je)
	case ctx.Err() != nil:
		p.cancelRemote(conn, id)
		return ctx.Err()
	default: // closed connection or the host went away
		return fmt.Errorf("%s: %w", method, tools.ErrHostGone)
	}
}

func (p *Peer) cancelRemote(conn *jsonrpc2.Conn, id jsonrpc2.ID) {
	idJSON, _ := json.Marshal(id)
	if err := conn.Notify(context.Background(), protocol.NotificationCancel, protocol.CancelParams{ID: idJSON}); err != nil {
		p.log.Debug().Err(err).Msg("could not tell the host a reverse call was abandoned")
	}
}

// Notify implements tools.Host. Without a host the notification is dropped.
func (p *Peer) Notify(ctx context.Context, method string, params any) error {
	conn := p.current()
	if conn == nil {
		return nil
	}
	return conn.Notify(ctx, method, params)
}

var _ tools.Host = (*Peer)(nil)
