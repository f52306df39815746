package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"steerable.dev/sidecar/internal/config"
	"steerable.dev/sidecar/internal/sandbox"
)

// exit codes.
const (
	exitOK     = 0
	exitFailed = 1 // call: the tool result was a failure
	exitUsage  = 2 // bad flags, invalid configuration, boot failure
)

// subcommands maps each subcommand to its entry point.
var subcommands = map[string]func(args []string, stdin io.Reader, stdout, stderr io.Writer) int{
	"serve":    serveCmd,
	"call":     callCmd,
	"tools":    toolsCmd,
	"contract": contractCmd,
	"version":  versionCmd,
	"mcp":      mcpCmd,
	// Hidden (not in --help): the Landlock backend re-executes the binary
	// through it to confine itself before exec'ing the command.
	sandbox.HelperCommand: sandboxExecCmd,
	// Hidden: on macOS the sandbox starts the binary through it at boot to
	// kill the commands' groups if the sidecar is SIGKILLed.
	sandbox.WatchdogCommand: func(_ []string, stdin io.Reader, _, _ io.Writer) int { return sandbox.WatchdogMain(stdin) },
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "-h", "-help", "--help", "help":
			fmt.Fprint(stdout, usage())
			return exitOK
		}
		if cmd, ok := subcommands[args[0]]; ok {
			return cmd(args[1:], stdin, stdout, stderr)
		}
		if !strings.HasPrefix(args[0], "-") {
			fmt.Fprintf(stderr, "steerable-sidecar: unknown command %q; see steerable-sidecar --help\n", args[0])
			return exitUsage
		}
	}
	return serveCmd(args, stdin, stdout, stderr)
}

// newFlagSet returns a flag set whose -h prints the subcommand's usage and
// the variable table.
func newFlagSet(name, synopsis string, stdout, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stdout, "usage: steerable-sidecar %s\n\nflags:\n", synopsis)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		fs.SetOutput(stderr)
		fmt.Fprintf(stdout, "\nenvironment variables:\n%s", config.Table())
	}
	return fs
}

// parseFlags parses args; it returns an exit code when the command should
// stop (help asked for: 0; bad flags: 2).
func parseFlags(fs *flag.FlagSet, args []string) (int, bool) {
	err := fs.Parse(args)
	switch {
	case err == flag.ErrHelp:
		return exitOK, true
	case err != nil:
		return exitUsage, true
	}
	return 0, false
}

// commonFlags are the flags every tool-running command shares.
type commonFlags struct {
	cwd        string
	noWebTools bool
	logLevel   string
	logFormat  string
}

func (c *commonFlags) register(fs *flag.FlagSet, defaultLevel string) {
	fs.StringVar(&c.cwd, "cwd", "", "workspace root (overrides STEERABLE_WORKSPACE; default: the current directory)")
	fs.BoolVar(&c.noWebTools, "no-web-tools", false, "register neither web_fetch nor web_search (offline task contracts)")
	fs.StringVar(&c.logLevel, "log-level", defaultLevel, "log level: trace, debug, info, warn, error")
	fs.StringVar(&c.logFormat, "log-format", "json", "log format on stderr: json or console")
}
