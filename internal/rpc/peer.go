package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rs/zerolog"
	"github.com/sourcegraph/jsonrpc2"

	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/internal/wire"
	"steerable.dev/sidecar/protocol"
)

// Peer is the sidecar's side of the reverse channel: requests to the host
// with ids "srv_1", "srv_2", … and notifications, sent on the connection's
// jsonrpc2.Conn. It exists before the connection (tools are built with it)
// and is bound when Serve starts.
//
// A reverse call ends in exactly one of: the host's result; the host's error
// (as *protocol.Error); an error saying the host's reply was malformed (any
// reply carrying the call's id ends it, well-formed or not); tools.ErrHostGone
// when there is no host, the host closed its input or a write failed; or
// ctx.Err(). A call whose ctx ends first also tells the host with
// $/cancelRequest, so it can close a dialog nobody waits for.
type Peer struct {
	mu   sync.Mutex
	conn *jsonrpc2.Conn
	seq  atomic.Uint64
	log  zerolog.Logger
}

// NewPeer returns an unbound peer; calls fail with tools.ErrHostGone until
// Serve binds it.
func NewPeer(log zerolog.Logger) *Peer {
	return &Peer{log: log}
}

func (p *Peer) bind(c *jsonrpc2.Conn) {
	p.mu.Lock()
	p.conn = c
	p.mu.Unlock()
}

func (p *Peer) connection() *jsonrpc2.Conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.conn
}

// Call sends the reverse request method and decodes the host's result into
// result (nil: ignore it). The typed methods of tools.Host (host.go) are
// built on it; it is exported for test tools that send arbitrary methods.
func (p *Peer) Call(ctx context.Context, method string, params, result any) error {
	conn := p.connection()
	if conn == nil {
		return fmt.Errorf("%s: %w", method, tools.ErrHostGone)
	}
	select {
	case <-conn.DisconnectNotify():
		return fmt.Errorf("%s: %w (it closed its input)", method, tools.ErrHostGone)
	default:
	}
	raw, err := marshalParams(params)
	if err != nil {
		return fmt.Errorf("%s: params do not marshal: %w", method, err)
	}
	id := jsonrpc2.ID{Str: "srv_" + strconv.FormatUint(p.seq.Add(1), 10), IsString: true}
	w, err := conn.DispatchCall(ctx, method, raw, jsonrpc2.PickID(id))
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return ctx.Err() // stdout is full: the host is not reading it
		case errors.Is(err, jsonrpc2.ErrClosed):
			return fmt.Errorf("%s: %w", method, tools.ErrHostGone)
		}
		return fmt.Errorf("%s: %w (%v)", method, tools.ErrHostGone, err)
	}
	var reply json.RawMessage
	err = w.Wait(ctx, &reply)
	var hostErr *jsonrpc2.Error
	switch {
	case err == nil:
		return decodeResult(method, reply, result)
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		p.cancelRemote(conn, id)
		return ctx.Err()
	case errors.Is(err, jsonrpc2.ErrClosed):
		return fmt.Errorf("%s: %w", method, tools.ErrHostGone)
	case errors.As(err, &hostErr):
		return fromWire(hostErr)
	}
	return err // a malformed reply (wire.ObjectStream)
}

// marshalParams is params' JSON, once: the Conn sends it as it is.
func marshalParams(params any) (json.RawMessage, error) {
	var b []byte
	if err := wire.AppendValue(&b, params); err != nil {
		return nil, err
	}
	return b, nil
}

func decodeResult(method string, reply json.RawMessage, result any) error {
	if result != nil {
		if err := json.Unmarshal(reply, result); err != nil {
			return fmt.Errorf("%s: the host replied with a malformed result: %w", method, err)
		}
	}
	return nil
}

// unmatched logs a response no reverse call waits for (the Conn's OnRecv:
// req is nil when no call had its id) and drops it.
func (p *Peer) unmatched(req *jsonrpc2.Request, resp *jsonrpc2.Response) {
	if resp == nil || req != nil {
		return
	}
	p.log.Warn().RawJSON("id", wire.RawID(resp.ID)).Msg("response matches no pending reverse call (" + p.why(resp.ID) + "); ignored")
}

// why says why no call waits for id.
func (p *Peer) why(id jsonrpc2.ID) string {
	if n, err := strconv.ParseUint(strings.TrimPrefix(id.Str, "srv_"), 10, 64); err == nil && id.IsString && strings.HasPrefix(id.Str, "srv_") && n >= 1 && n <= p.seq.Load() {
		return "that call is already over"
	}
	return "the sidecar never sent that id"
}

// cancelRemote tells the host a reverse call was abandoned, if stdout has
// room: the call is over either way.
func (p *Peer) cancelRemote(conn *jsonrpc2.Conn, id jsonrpc2.ID) {
	raw, _ := marshalParams(protocol.CancelParams{ID: wire.RawID(id)})
	if conn.Notify(tryCtx, protocol.NotificationCancel, raw) != nil {
		p.log.Debug().Msg("could not tell the host a reverse call was abandoned: stdout is full or closed")
	}
}

// tryCtx and queueCtx carry the writer's modes (wire.WithMode): drop when
// full; queue for the read loop's batch.
var (
	tryCtx   = wire.WithMode(context.Background(), wire.ModeTry)
	queueCtx = wire.WithMode(context.Background(), wire.ModeQueue)
)

// notify sends a notification, waiting for room on stdout only as long as
// ctx. Without a host it is dropped.
func (p *Peer) notify(ctx context.Context, method string, params any) error {
	conn := p.connection()
	if conn == nil {
		return nil
	}
	raw, err := marshalParams(params)
	if err != nil {
		return fmt.Errorf("%s: params do not marshal: %w", method, err)
	}
	return conn.Notify(ctx, method, raw)
}

// tryNotify sends a notification only if stdout has room: when it is full
// the notification is dropped and counted (system.ping's
// droppedNotifications).
func (p *Peer) tryNotify(method string, params any) {
	_ = p.notify(tryCtx, method, params)
}
