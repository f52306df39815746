package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"steerable.dev/sidecar/internal/prompt"
	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

// maxCallInput bounds the JSON read from stdin by `call TOOL -`.
const maxCallInput = 64 << 20

// callCmd runs one tool call through the dispatch pipeline and prints the
// ToolResult. The configuration is strict: an invalid variable exits 2.
func callCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("call", "call [flags] TOOL [JSON|-]", stdout, stderr)
	var common commonFlags
	common.register(fs, "warn")
	consent := fs.Bool("consent", false, "set consentGranted on the call (skips approval.request)")
	if code, stop := parseFlags(fs, args); stop {
		return code
	}
	if fs.NArg() < 1 || fs.NArg() > 2 {
		fmt.Fprintln(stderr, "usage: steerable-sidecar call [flags] TOOL [JSON|-]")
		return exitUsage
	}
	argsJSON, err := callArguments(fs.Arg(1), stdin)
	if err != nil {
		fmt.Fprintf(stderr, "steerable-sidecar call: %v\n", err)
		return exitUsage
	}
	a, err := boot(common, true, stderr)
	if err == nil {
		a.probeSandbox()
		a.askUser = prompt.NewTTY() // no host: ask_user prompts on the terminal
		if err = a.buildTools(tools.NoHost{}); err != nil {
			a.close()
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "steerable-sidecar: %v\n", err)
		return exitUsage
	}
	defer a.close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res := a.dispatcher.Dispatch(ctx, tools.Invocation{
		ToolCall:       protocol.ToolCall{Name: fs.Arg(0), Arguments: argsJSON},
		ConsentGranted: *consent,
	})
	out, _ := json.MarshalIndent(res, "", "  ")
	fmt.Fprintf(stdout, "%s\n", out)
	if !res.Success {
		return exitFailed
	}
	return exitOK
}

// callArguments reads the call's JSON arguments: the argument itself, "-"
// for stdin, or {} when absent.
func callArguments(arg string, stdin io.Reader) (json.RawMessage, error) {
	var b []byte
	switch arg {
	case "":
		return json.RawMessage(`{}`), nil
	case "-":
		var err error
		if b, err = io.ReadAll(io.LimitReader(stdin, maxCallInput+1)); err != nil {
			return nil, err
		}
		if len(b) > maxCallInput {
			return nil, fmt.Errorf("arguments on stdin exceed %d bytes", maxCallInput)
		}
	default:
		b = []byte(arg)
	}
	if !json.Valid(b) {
		return nil, fmt.Errorf("arguments are not valid JSON: %.80q", b)
	}
	return b, nil
}
