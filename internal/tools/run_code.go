package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"steerable.dev/sidecar/internal/runcode"
	"steerable.dev/sidecar/internal/sandbox"
	"steerable.dev/sidecar/protocol"
)

type runCodeArgs struct {
	Code        string `json:"code"`
	Description string `json:"description"`
}

const runCodeSchema = `{"type":"object","properties":{
"code":{"type":"string","description":"The body of a Python function (at most 100000 characters): statements, then return a JSON-serialisable value. tools.<name>(**arguments) or tools.call(name, **arguments) runs a tool and returns its result as a dict; tools.call_or_raise raises ToolCallError when the call fails."},
"description":{"type":"string","minLength":1,"description":"What the program does, in a few words (shown to the user)."}},
"required":["code","description"],"additionalProperties":false}`

// runCodeDescription tells the model what the program may use.
const runCodeDescription = "Run a short Python program that calls the other tools, instead of many separate tool calls " +
	"(e.g. read twenty files, filter, summarise). code is a function body: `return` gives the result. " +
	"Call tools as tools.read_file(path=\"a.txt\") or tools.call(\"read_file\", path=\"a.txt\"): each returns the ToolResult dict " +
	"({success, data, error, ...}); tools.call_or_raise raises ToolCallError on failure. Imports are limited to pure stdlib " +
	"modules (json, re, math, collections, itertools, datetime, difflib, hashlib, ...); no open, eval or exec: read and write " +
	"files through the tools. print() output is returned in data.logs. Runs under the OS sandbox, network off."

// runCode is what run_code needs: the session's interpreter runtime, the
// pipeline its nested calls go through, the sandbox that reports the
// posture, and the host for the live output.
type runCode struct {
	rt   *runcode.Runtime
	disp *Dispatcher
	sb   *sandbox.Sandbox
	host Host
}

// newRunCode is the run_code tool (SPEC §4.6): the program runs
// in runcode's sandboxed interpreter, and every tool it calls goes back
// through the dispatch pipeline.
func newRunCode(rc runCode) Tool {
	desc := protocol.ToolDescriptor{Name: "run_code", Mode: protocol.ModeLocal, Parameters: json.RawMessage(runCodeSchema),
		Description: runCodeDescription}
	return New(desc, rc.run)
}

func (rc runCode) run(ctx context.Context, call Call, a runCodeArgs) protocol.ToolResult {
	if refused := checkProgram(a); refused != nil {
		return *refused
	}
	live := startProgress(rc.host, call.ID)
	out, err := rc.rt.Run(ctx, runcode.Program{CallID: call.ID, Code: a.Code, OnOutput: live.Write}, nestedDispatch(rc.disp, call.ID))
	live.Close()
	switch {
	case errors.Is(err, sandbox.ErrUnavailable):
		res := Terminal("sandbox_unavailable")
		res.Message = err.Error() + "; run_code never runs unconfined: use STEERABLE_SANDBOX=auto on a system with bwrap or Landlock, " +
			"or set STEERABLE_SIDECAR_CONFINED=1 if the host already confines the sidecar"
		res.Data = map[string]any{"_sandbox": rc.sb.Info().Map()}
		return res
	case err != nil:
		return Terminal("run_code cannot run the program: %v", err)
	}
	return runCodeResult(a.Description, out, rc.sb.Policy().Limits, rc.rt.Limits())
}

// checkProgram refuses what cannot be a program before a child starts.
func checkProgram(a runCodeArgs) *protocol.ToolResult {
	var r protocol.ToolResult
	switch n := utf8.RuneCountInString(a.Code); {
	case strings.TrimSpace(a.Code) == "":
		r = Followup("code is empty; pass the body of a Python function: statements, then return the value you need")
	case n > runcode.MaxCodeChars:
		r = Followup("code is %d characters, over run_code's limit of %d; write a shorter program (loop over the inputs "+
			"instead of spelling them out) or split the work over several calls", n, runcode.MaxCodeChars)
	case strings.TrimSpace(a.Description) == "":
		r = Followup("description is blank; say in a few words what the program does")
	default:
		return nil
	}
	return &r
}

// nestedDispatch runs the program's calls through the pipeline: schema,
// approval (the consent given for run_code is not consent for what it
// calls), the tool, host tools over reverse tool.invoke. Each call's id is
// the run_code call's id and its number.
func nestedDispatch(disp *Dispatcher, parent string) runcode.Dispatch {
	return func(ctx context.Context, seq int, tool string, args json.RawMessage) protocol.ToolResult {
		return disp.Dispatch(ctx, Invocation{ToolCall: protocol.ToolCall{ID: fmt.Sprintf("%s.%d", parent, seq), Name: tool, Arguments: args}})
	}
}

var _ Tool = (*typed[runCodeArgs])(nil)
