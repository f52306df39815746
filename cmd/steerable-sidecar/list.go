package main

import (
	"encoding/json"
	"fmt"
	"io"

	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

// toolsCmd prints the descriptors: the inventory, or with --model what a
// host would offer the model.
func toolsCmd(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("tools", "tools [--model] [--strategy full|minimal|progressive] [--ask-user]", stdout, stderr)
	var common commonFlags
	common.register(fs, "warn")
	model := fs.Bool("model", false, "print the model view instead of the whole inventory")
	strategy := fs.String("strategy", protocol.StrategyFull, "model-view strategy: full, minimal or progressive")
	askUser := fs.Bool("ask-user", false, "include ask_user in the model view")
	if code, stop := parseFlags(fs, args); stop {
		return code
	}
	a, err := boot(common, false, stderr)
	if err == nil {
		a.probeSandbox()
		if err = a.buildTools(tools.NoHost{}); err != nil {
			a.close()
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "steerable-sidecar: %v\n", err)
		return exitUsage
	}
	defer a.close()
	p := protocol.ToolListParams{View: protocol.ViewInventory}
	if *model {
		p = protocol.ToolListParams{View: protocol.ViewModel, Strategy: *strategy, AskUser: *askUser}
	}
	list, err := a.registry.List(p)
	if err != nil {
		fmt.Fprintf(stderr, "steerable-sidecar tools: %v\n", err)
		return exitUsage
	}
	out, _ := json.MarshalIndent(list, "", "  ")
	fmt.Fprintf(stdout, "%s\n", out)
	return exitOK
}
