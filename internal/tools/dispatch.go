package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/clip"
	"steerable.dev/sidecar/internal/schema"
	"steerable.dev/sidecar/protocol"
)

// Dispatcher runs tool calls through the pipeline of SPEC §3. It is the only
// way a tool runs: tool.invoke, run_code's nested calls and the CLI share it.
type Dispatcher struct {
	reg      *Registry
	approver Approver // nil: approvals off, the host is responsible
	log      zerolog.Logger
	commands CommandNoter // nil: nobody is told of commands
}

// CommandNoter hears of every call of a tool that can change files in
// ways the file tools do not record (mode local or destructive: bash,
// run_code, a local plugin or host tool), just before it runs, so a
// restore can say that commands ran (checkpoint.Store).
type CommandNoter interface {
	CommandRan(tool string)
}

// NoteCommands sets who hears of commands; call it before the first
// dispatch.
func (d *Dispatcher) NoteCommands(n CommandNoter) { d.commands = n }

// NewDispatcher returns a dispatcher over reg. approver may be nil.
func NewDispatcher(reg *Registry, approver Approver, log zerolog.Logger) *Dispatcher {
	return &Dispatcher{reg: reg, approver: approver, log: log}
}

// Invocation is a ToolCall plus the one invocation option.
type Invocation struct {
	protocol.ToolCall
	ConsentGranted bool
}

// Dispatch runs one call and always returns a result; data.durationMs is set
// on every result.
func (d *Dispatcher) Dispatch(ctx context.Context, inv Invocation) protocol.ToolResult {
	start := time.Now()
	if inv.ID == "" {
		inv.ID = NewCallID()
	}
	res, mode := d.dispatch(ctx, inv)
	ms := time.Since(start).Milliseconds()
	if res.Data == nil {
		res.Data = map[string]any{}
	}
	res.Data["durationMs"] = ms
	ev := d.log.Info()
	if !res.Success {
		ev = d.log.Warn().Str("error", clip.Short(res.Error, 300))
	}
	ev.Str("tool", inv.Name).Str("mode", string(mode)).Str("callId", inv.ID).
		Int64("durationMs", ms).Bool("success", res.Success).Msg("tool call")
	return res
}

func (d *Dispatcher) dispatch(ctx context.Context, inv Invocation) (protocol.ToolResult, protocol.Mode) {
	e, ok := d.reg.Lookup(inv.Name)
	if !ok {
		res := Followup("unknown tool: %s", inv.Name)
		res.Data = map[string]any{"unknownTool": inv.Name, "suggestions": d.reg.Suggest(inv.Name)}
		return res, ""
	}
	mode := e.Desc.Mode
	args, refused := prepare(e, inv.Arguments)
	if refused != nil {
		return *refused, mode
	}
	if d.approver != nil && needsApproval(mode) && !inv.ConsentGranted {
		if res, ok := d.approve(ctx, inv, args, mode); !ok {
			return res, mode
		}
	}
	if d.commands != nil && (mode == protocol.ModeLocal || mode == protocol.ModeDestructive) {
		d.commands.CommandRan(inv.Name)
	}
	return run(ctx, e, Call{ID: inv.ID, Arguments: args}, d.log), mode
}

// prepare normalises (for tools that want it) and validates the arguments.
func prepare(e *Entry, args json.RawMessage) (json.RawMessage, *protocol.ToolResult) {
	name := e.Desc.Name
	if len(bytes.TrimSpace(args)) == 0 || bytes.Equal(bytes.TrimSpace(args), []byte("null")) {
		args = json.RawMessage("{}")
	}
	if p, ok := e.Tool.(Preparer); ok {
		var refused *protocol.ToolResult
		if args, refused = p.Prepare(args); refused != nil {
			return nil, refused
		}
	}
	if sch, err := e.Schema(); err == nil && sch.Accepts(args) {
		return args, nil // the fast check of a flat schema
	}
	inst, err := schema.Decode(args)
	if err != nil {
		r := Followup("arguments for %s are not valid JSON: %v", name, err)
		return nil, &r
	}
	if _, ok := inst.(map[string]any); !ok {
		r := Followup("arguments for %s must be a JSON object, got %s", name, schema.Kind(inst))
		return nil, &r
	}
	sch, err := e.Schema()
	if err != nil {
		r := Terminal("internal error: %v (a bug in the tool's schema)", err)
		return nil, &r
	}
	if err := sch.Validate(inst); err != nil {
		r := Followup("invalid arguments for %s: %s; fix them to match the tool's parameters schema", name, strings.Join(schema.Errors(err), "; "))
		return nil, &r
	}
	return args, nil
}

func (d *Dispatcher) approve(ctx context.Context, inv Invocation, args json.RawMessage, mode protocol.Mode) (protocol.ToolResult, bool) {
	dec, err := d.approver.Approve(ctx, protocol.ApprovalRequestParams{
		CallID: inv.ID, ToolName: inv.Name, Arguments: args, Mode: mode,
	})
	reason := dec.Reason
	switch {
	case err != nil:
		reason = fmt.Sprintf("approval could not be obtained: %v", err)
	case dec.Decision == protocol.DecisionAllow:
		return protocol.ToolResult{}, true
	case reason == "":
		reason = "the user denied this call"
	}
	res := Followup("approval_denied")
	res.Message = reason + "; do not retry the same call, choose another approach or ask the user"
	res.Data = map[string]any{"reason": reason}
	return res, false
}

// run calls the tool, turning a panic into a result; the stack goes to the
// log, never to the model.
func run(ctx context.Context, e *Entry, call Call, log zerolog.Logger) (res protocol.ToolResult) {
	defer func() {
		if p := recover(); p != nil {
			log.Error().Str("tool", e.Desc.Name).Str("callId", call.ID).
				Str("panic", fmt.Sprint(p)).Bytes("stack", debug.Stack()).Msg("tool panicked")
			res = protocol.ToolResult{Success: false, Error: fmt.Sprintf("internal error in tool %s (a bug, logged by the sidecar)", e.Desc.Name)}
		}
	}()
	return e.Tool.Run(ctx, call)
}
