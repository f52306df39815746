package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/schema"
	"steerable.dev/sidecar/internal/wire"
	"steerable.dev/sidecar/protocol"
)

// dispatcher runs the host's requests. The read loop hands it each request
// in order; it admits the request (admit.go), and each admitted request runs
// in its own goroutine with its own cancellable context, so a slow tool never
// blocks reading (cancellations, reverse-call replies), and $/cancelRequest
// and shutdown can cancel one request or all of them.
type dispatcher struct {
	srv     *Server
	methods map[string]method
	schemas *schema.Set
	log     zerolog.Logger
	limits  limits

	mu       sync.Mutex
	inflight map[string]*call // by id key: running or queued
	running  int              // calls holding an in-flight slot
	queue    []*call          // calls waiting for a slot, oldest first
	queued   int              // bytes of the frames in queue
	light    int              // running calls that need no slot
	lightCap *sync.Cond       // signalled when light drops
	draining bool
	active   int           // admitted calls not yet finished
	idle     chan struct{} // closed while active == 0
	room     chan struct{} // a token whenever a slot or a queue place frees

	work        chan *call    // hands a call to an idle worker
	quit        chan struct{} // closed when Serve ends: idle workers exit
	idleWorkers atomic.Int32
}

// call is one admitted request.
type call struct {
	msg    wire.Message
	m      method
	known  bool
	size   int // frame bytes, counted against the queue's bound
	ctx    context.Context
	cancel context.CancelCauseFunc
	slot   bool // holds an in-flight slot
}

func newDispatcher(srv *Server, l limits, log zerolog.Logger) *dispatcher {
	d := &dispatcher{
		srv:      srv,
		methods:  methodTable(),
		schemas:  &schema.Set{},
		log:      log,
		limits:   l,
		inflight: map[string]*call{},
		idle:     closedChan(),
		room:     make(chan struct{}, 1),
		work:     make(chan *call),
		quit:     make(chan struct{}),
	}
	d.lightCap = sync.NewCond(&d.mu)
	return d
}

// start runs c in a goroutine of its own: an idle worker when there is one,
// else a new one. Each call has the goroutine to itself while it runs;
// reusing finished ones spares every request a new goroutine growing its
// stack through the same encoding/json frames as the last.
func (d *dispatcher) start(c *call) {
	select {
	case d.work <- c:
	default:
		go d.worker(c)
	}
}

func (d *dispatcher) worker(c *call) {
	for {
		d.serve(c)
		// Keep as many as may run at once; GC shrinks the stacks of those
		// that stay idle.
		if d.idleWorkers.Add(1) > int32(d.limits.inflight+d.limits.light) {
			d.idleWorkers.Add(-1)
			return
		}
		select {
		case c = <-d.work:
			d.idleWorkers.Add(-1)
		case <-d.quit:
			return
		}
	}
}

// stopWorkers ends the idle workers (Serve returns).
func (d *dispatcher) stopWorkers() { close(d.quit) }

// serve runs one call to its reply.
func (d *dispatcher) serve(c *call) {
	defer d.done()
	defer c.cancel(nil)
	var result any
	var err error
	switch {
	case !c.known:
		err = methodNotFound(c.msg.Method)
	case c.ctx.Err() == nil: // a queued call may have been cancelled before it got a slot
		result, err = d.call(c.ctx, c.msg, c.m)
	}
	var stop *protocol.Error
	if cause := context.Cause(c.ctx); errors.As(cause, &stop) {
		result, err = nil, stop
	}
	d.mu.Lock()
	delete(d.inflight, c.msg.ID.Key)
	d.mu.Unlock()
	d.reply(c.msg, result, err)
	// The slot is released only once the reply is queued: a host that does
	// not read stdout then holds at most MaxInflight replies waiting for the
	// bounded output queue (plus the request queue), and the read loop
	// pauses, then answers busy (SPEC §1 "Concurrency"). Released before
	// the reply, every finished call would free its slot for the next one,
	// and a flood would become as many goroutines holding their replies.
	d.release(c)
	if err == nil && c.m.afterReply != nil {
		c.m.afterReply(d.srv)
	}
}

// methodNotFound answers a method the table does not have. An MCP client
// that spawned the sidecar without the mcp subcommand opens with
// initialize: it is told how to run MCP mode.
func methodNotFound(method string) error {
	if method == mcpInitialize {
		return protocol.Errorf(protocol.CodeMethodNotFound,
			"method not found: initialize is MCP's handshake, and this is the sidecar's own JSON-RPC protocol (serve mode); for MCP run `steerable-sidecar mcp`").
			WithData("method", method)
	}
	return protocol.Errorf(protocol.CodeMethodNotFound, "method not found: %s", method).WithData("method", method)
}

// mcpInitialize is the first request of every MCP client.
const mcpInitialize = "initialize"

// call validates and decodes the params, then runs the handler, turning a
// panic into -32603.
func (d *dispatcher) call(ctx context.Context, msg wire.Message, m method) (result any, err error) {
	defer d.recoverPanic(msg, &result, &err)
	p, err := d.params(msg.Method, m, msg.Params)
	if err != nil {
		return nil, err
	}
	return m.handle(ctx, d.srv, p)
}

// callOnReader answers msg on the read loop by m.onReader, as call would
// (params checked, a panic -32603); ok is false when the method must run
// the usual way this time.
func (d *dispatcher) callOnReader(msg wire.Message, m method) (result any, err error, ok bool) {
	defer d.recoverPanic(msg, &result, &err)
	if _, err := d.params(msg.Method, m, msg.Params); err != nil {
		return nil, err, true
	}
	result, ok = m.onReader(d.srv)
	return result, nil, ok
}

func (d *dispatcher) recoverPanic(msg wire.Message, result *any, err *error) {
	if p := recover(); p != nil {
		d.log.Error().Str("method", msg.Method).Str("panic", fmt.Sprint(p)).Bytes("stack", debug.Stack()).Msg("handler panicked")
		*result, *err = nil, protocol.Errorf(protocol.CodeInternal, "internal error in %s (a bug, logged by the sidecar)", msg.Method)
	}
}

// params checks params against the method's schema and decodes them: by the
// method's fast path when it has one that accepts them, else by the schema
// and then encoding/json. Absent or null params are {}.
func (d *dispatcher) params(name string, m method, raw json.RawMessage) (any, error) {
	if raw == nil {
		raw = json.RawMessage(`{}`)
	}
	if m.fast != nil {
		if p, ok := m.fast(raw); ok {
			return p, nil
		}
	}
	if m.params == "" {
		if !isEmptyObject(raw) {
			return nil, protocol.Errorf(protocol.CodeInvalidParams, "%s takes no params", name).WithData("errors", []string{"params must be absent, null or {}"})
		}
		return nil, nil
	}
	if err := d.validate(name, m, raw); err != nil {
		return nil, err
	}
	return m.decode(raw)
}

func (d *dispatcher) validate(name string, m method, params json.RawMessage) error {
	inst, err := schema.Decode(params)
	if err != nil {
		return protocol.Errorf(protocol.CodeInvalidParams, "params do not decode: %v", err)
	}
	sch, err := d.schemas.Get(m.params)
	if err != nil {
		return err // a build defect: the schemas are embedded
	}
	if err := sch.Validate(inst); err != nil {
		errs := schema.Errors(err)
		return protocol.Errorf(protocol.CodeInvalidParams, "invalid params for %s: %s", name, errs[0]).WithData("errors", errs)
	}
	return nil
}

// isEmptyObject: raw (valid JSON) is {} with any whitespace inside.
func isEmptyObject(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) >= 2 && raw[0] == '{' && len(bytes.TrimSpace(raw[1:len(raw)-1])) == 0 && raw[len(raw)-1] == '}'
}

// reply writes the response frame of a call a worker ran, marshalled once
// (reply.go).
func (d *dispatcher) reply(msg wire.Message, result any, err error) {
	d.answer(msg, result, err, false)
}

// replyNow answers a request on the read loop (one that is not admitted,
// or one answered there): the frame goes out with its batch.
func (d *dispatcher) replyNow(msg wire.Message, result any, err error) {
	d.answer(msg, result, err, true)
}

func (d *dispatcher) answer(msg wire.Message, result any, err error, queue bool) {
	buf := getFrameBuf()
	b := *buf
	r := &responseAndResult{} // one allocation for both
	resp := &r.resp
	resp.ID = replyID(msg.ID)
	if err == nil {
		var mErr error
		if b, mErr = appendResult(b[:0], result); mErr != nil {
			d.log.Error().Err(mErr).Str("method", msg.Method).Msg("reply does not marshal")
			err = fmt.Errorf("reply does not marshal: %w", mErr)
		} else {
			r.result = b
			resp.Result = &r.result
		}
	}
	if err != nil {
		if toWire(err).Code == protocol.CodeInternal {
			d.log.Error().Err(err).Str("method", msg.Method).Msg("internal error")
		}
		resp.Error = toConn(err)
	}
	ctx := context.Background() // a reply waits for room as long as it takes
	if queue {
		ctx = queueCtx
	}
	_ = d.srv.conn.SendResponse(ctx, resp) // a failed write ends the session (OnWriteError)
	putFrameBuf(buf, b)
}

// notification handles the notifications a host may send. Unknown ones are
// ignored (JSON-RPC never answers a notification).
func (d *dispatcher) notification(msg wire.Message) {
	if msg.Method != protocol.NotificationCancel {
		d.log.Debug().Str("method", msg.Method).Msg("notification ignored")
		return
	}
	var p protocol.CancelParams
	if msg.Params == nil || json.Unmarshal(msg.Params, &p) != nil || len(p.ID) == 0 || !json.Valid(p.ID) || !validCancelID(p.ID) {
		d.log.Warn().Msg("$/cancelRequest without a valid id ignored")
		return
	}
	id := wire.NewID(bytes.TrimSpace(p.ID))
	if !d.cancel(id.Key, errCancelledByHost) {
		d.log.Debug().Str("id", id.String()).Msg("$/cancelRequest for a request not in flight ignored")
	}
}

// validCancelID: a cancel names an id a request can have (not null).
func validCancelID(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && string(raw) != "null" && wire.ValidID(raw)
}

// stopAccepting makes every later non-system request fail with -32800.
func (d *dispatcher) stopAccepting() {
	d.mu.Lock()
	d.draining = true
	d.mu.Unlock()
}

// cancelAll cancels every admitted request with cause; queued ones are
// answered at once.
func (d *dispatcher) cancelAll(cause error) {
	d.mu.Lock()
	keys := make([]string, 0, len(d.inflight))
	for k := range d.inflight {
		keys = append(keys, k)
	}
	d.mu.Unlock()
	for _, k := range keys {
		d.cancel(k, cause)
	}
}

func (d *dispatcher) done() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.active--; d.active == 0 {
		close(d.idle)
	}
}

// idleChan is closed once no admitted call is left.
func (d *dispatcher) idleChan() <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.idle
}

func closedChan() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}
