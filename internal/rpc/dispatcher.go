package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"github.com/rs/zerolog"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/sourcegraph/jsonrpc2"

	"steerable.dev/sidecar/protocol"
)

// dispatcher is the connection's jsonrpc2.Handler. The library calls Handle
// on its read loop with the connection's context; the dispatcher gives each
// request its own goroutine and its own cancellable context instead, so a
// slow tool never blocks reading (cancellations, reverse-call replies), and
// so $/cancelRequest and shutdown can cancel one request or all of them.
type dispatcher struct {
	srv     *Server
	methods map[string]method
	schemas *protocol.SchemaSet
	sem     chan struct{} // in-flight cap (STEERABLE_MAX_INFLIGHT)
	log     zerolog.Logger

	mu       sync.Mutex
	inflight map[jsonrpc2.ID]context.CancelCauseFunc
	draining bool
	active   int           // request goroutines not yet finished
	idle     chan struct{} // closed while active == 0
}

func newDispatcher(srv *Server, maxInflight int, log zerolog.Logger) *dispatcher {
	return &dispatcher{
		srv:      srv,
		methods:  methodTable(),
		schemas:  &protocol.SchemaSet{},
		sem:      make(chan struct{}, maxInflight),
		log:      log,
		inflight: map[jsonrpc2.ID]context.CancelCauseFunc{},
		idle:     closedChan(),
	}
}

// Handle implements jsonrpc2.Handler. It runs on the read loop, so it only
// registers the request and starts its goroutine; registering here (not in
// the goroutine) is what lets a $/cancelRequest read right after the request
// find it.
func (d *dispatcher) Handle(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) {
	if req.Notif {
		d.notification(req)
		return
	}
	m, known := d.methods[req.Method]
	d.mu.Lock()
	if _, dup := d.inflight[req.ID]; dup {
		d.mu.Unlock()
		d.reply(req, nil, protocol.Errorf(protocol.CodeInvalidRequest, "request id %s is already in flight; use a new id", req.ID))
		return
	}
	if d.draining && !m.system {
		d.mu.Unlock()
		d.reply(req, nil, errCancelledByStop)
		return
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	d.inflight[req.ID] = cancel
	if d.active == 0 {
		d.idle = make(chan struct{})
	}
	d.active++
	d.mu.Unlock()
	go d.serve(ctx, cancel, req, m, known)
}

func (d *dispatcher) serve(ctx context.Context, cancel context.CancelCauseFunc, req *jsonrpc2.Request, m method, known bool) {
	defer d.done()
	defer cancel(nil)
	var result any
	var err error
	switch {
	case !known:
		err = protocol.Errorf(protocol.CodeMethodNotFound, "method not found: %s", req.Method).WithData("method", req.Method)
	case d.acquire(ctx, m):
		result, err = d.call(ctx, req, m)
		d.release(m)
	}
	var stop *protocol.Error
	if cause := context.Cause(ctx); errors.As(cause, &stop) {
		result, err = nil, stop
	}
	d.mu.Lock()
	delete(d.inflight, req.ID)
	d.mu.Unlock()
	d.reply(req, result, err)
	if err == nil && m.afterReply != nil {
		m.afterReply(d.srv)
	}
}

// acquire waits for an in-flight slot (system methods need none, so ping and
// shutdown answer even when every slot is busy). It fails only when the
// request is cancelled while it waits.
func (d *dispatcher) acquire(ctx context.Context, m method) bool {
	if m.system {
		return true
	}
	select {
	case d.sem <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

func (d *dispatcher) release(m method) {
	if !m.system {
		<-d.sem
	}
}

// call validates the params against the method's schema and runs the
// handler, turning a panic into -32603.
func (d *dispatcher) call(ctx context.Context, req *jsonrpc2.Request, m method) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			d.log.Error().Str("method", req.Method).Str("panic", fmt.Sprint(p)).Bytes("stack", debug.Stack()).Msg("handler panicked")
			result, err = nil, protocol.Errorf(protocol.CodeInternal, "internal error in %s (a bug, logged by the sidecar)", req.Method)
		}
	}()
	params := json.RawMessage(`{}`)
	if req.Params != nil && !bytes.Equal(bytes.TrimSpace(*req.Params), []byte("null")) {
		params = *req.Params
	}
	if err := d.validate(req.Method, m, params); err != nil {
		return nil, err
	}
	return m.handle(ctx, d.srv, params)
}

func (d *dispatcher) validate(name string, m method, params json.RawMessage) error {
	if m.params == "" {
		if !bytes.Equal(bytes.Join(bytes.Fields(params), nil), []byte("{}")) {
			return protocol.Errorf(protocol.CodeInvalidParams, "%s takes no params", name).WithData("errors", []string{"params must be absent, null or {}"})
		}
		return nil
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(params))
	if err != nil {
		return protocol.Errorf(protocol.CodeInvalidParams, "params do not decode: %v", err)
	}
	sch, err := d.schemas.Get(m.params)
	if err != nil {
		return err // a build defect: the schemas are embedded
	}
	if err := sch.Validate(inst); err != nil {
		errs := protocol.SchemaErrors(err)
		return protocol.Errorf(protocol.CodeInvalidParams, "invalid params for %s: %s", name, errs[0]).WithData("errors", errs)
	}
	return nil
}

// reply writes the response frame straight to the stream, marshalled once:
// the library's Conn.Reply would marshal the result, then the response,
// then the message, compacting the same bytes three times.
func (d *dispatcher) reply(req *jsonrpc2.Request, result any, err error) {
	var b []byte
	var mErr error
	if err != nil {
		we := toWire(err)
		if we.Code == int64(protocol.CodeInternal) {
			d.log.Error().Err(err).Str("method", req.Method).Msg("internal error")
		}
		b, mErr = json.Marshal(errorReply{JSONRPC: "2.0", ID: req.ID, Error: we})
	} else {
		b, mErr = json.Marshal(resultReply{JSONRPC: "2.0", ID: req.ID, Result: result})
	}
	if mErr != nil {
		d.log.Error().Err(mErr).Str("method", req.Method).Msg("reply does not marshal")
		b, _ = json.Marshal(errorReply{JSONRPC: "2.0", ID: req.ID, Error: toWire(fmt.Errorf("reply does not marshal: %w", mErr))})
	}
	if err := d.srv.st.writeFrame(b); err != nil {
		d.log.Debug().Err(err).Str("method", req.Method).Msg("reply not sent")
	}
}

type resultReply struct {
	JSONRPC string      `json:"jsonrpc"`
	ID      jsonrpc2.ID `json:"id"`
	Result  any         `json:"result"`
}

type errorReply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      jsonrpc2.ID     `json:"id"`
	Error   *jsonrpc2.Error `json:"error"`
}

// notification handles the notifications a host may send. Unknown ones are
// ignored (JSON-RPC never answers a notification).
func (d *dispatcher) notification(req *jsonrpc2.Request) {
	if req.Method != protocol.NotificationCancel {
		d.log.Debug().Str("method", req.Method).Msg("notification ignored")
		return
	}
	var p protocol.CancelParams
	id, ok := jsonrpc2.ID{}, false
	if req.Params != nil && json.Unmarshal(*req.Params, &p) == nil {
		id, ok = parseID(p.ID)
	}
	if !ok {
		d.log.Warn().Msg("$/cancelRequest without a valid id ignored")
		return
	}
	d.mu.Lock()
	cancel, found := d.inflight[id]
	d.mu.Unlock()
	if !found {
		d.log.Debug().Str("id", id.String()).Msg("$/cancelRequest for a request not in flight ignored")
		return
	}
	cancel(errCancelledByHost)
}

func parseID(raw json.RawMessage) (jsonrpc2.ID, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return jsonrpc2.ID{Str: s, IsString: true}, true
	}
	n, err := strconv.ParseUint(string(bytes.TrimSpace(raw)), 10, 64)
	return jsonrpc2.ID{Num: n}, err == nil
}

// stopAccepting makes every later non-system request fail with -32800.
func (d *dispatcher) stopAccepting() {
	d.mu.Lock()
	d.draining = true
	d.mu.Unlock()
}

// cancelAll cancels every in-flight request with cause.
func (d *dispatcher) cancelAll(cause error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, cancel := range d.inflight {
		cancel(cause)
	}
}

func (d *dispatcher) done() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.active--; d.active == 0 {
		close(d.idle)
	}
}

// idleChan is closed once no request goroutine is running.
func (d *dispatcher) idleChan() <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.idle
}

// wait waits up to timeout for every request goroutine to finish.
func (d *dispatcher) wait(timeout time.Duration) bool {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-d.idleChan():
		return true
	case <-t.C:
		return false
	}
}

func closedChan() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

var _ jsonrpc2.Handler = (*dispatcher)(nil)
