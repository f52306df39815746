// Package mcptest is the MCP server the plugin tests run as a plugin: a
// well-behaved server built with the official Go SDK whose tools cover
// every mapping (annotations, isError, structured content, progress,
// images, resources, list_changed, a tool named read_file, a crash mid-call,
// a call that hangs), and hand-written misbehaving servers (garbage on
// stdout, no answer to initialize, replies of 100 MB, floods, endless tool
// lists). Tests re-execute their own binary into Main (hashicorp/go-plugin
// style); bench/plugins builds it as a program.
package mcptest

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Main runs the server described by args on stdin/stdout and returns the
// exit code.
func Main(args []string) int {
	fs := flag.NewFlagSet("mcp-test-server", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	o := options{}
	fs.IntVar(&o.tools, "tools", 0, "add N generated tools gen_0 … gen_N-1")
	fs.IntVar(&o.page, "page", 0, "tools/list page size (0: the SDK's)")
	fs.DurationVar(&o.slowStart, "slow-start", 0, "sleep this long before serving")
	fs.BoolVar(&o.garbage, "garbage", false, "write non-JSON lines to stdout before and between messages")
	fs.BoolVar(&o.exitAtStart, "exit-at-start", false, "write to stderr and exit 3 before serving")
	fs.BoolVar(&o.invalidSchema, "invalid-schema", false, "add a tool whose inputSchema is not a valid JSON Schema")
	fs.BoolVar(&o.danglingRef, "dangling-ref", false, "add a tool whose inputSchema is well formed but does not compile (a $ref to nowhere)")
	fs.BoolVar(&o.readFile, "read-file", true, "add a tool named read_file (the built-in's name)")
	fs.StringVar(&o.raw, "raw", "", "run a hand-written misbehaving server: no-init, big, big-noid, huge-list, cursor-loop, flood")
	fs.Int64Var(&o.bigBytes, "big-bytes", 100<<20, "size of the raw big reply")
	fs.BoolVar(&o.idLast, "id-last", false, "raw big: write the id after the result, as the TypeScript SDK does")
	fs.StringVar(&o.exitIf, "exit-if", "", "exit 4 at start when this file exists (a restart that fails)")
	fs.StringVar(&o.addIf, "add-if", "", "PATH=NAME: add a tool NAME when the file PATH exists at start")
	fs.StringVar(&o.namePrefix, "name-prefix", "", "put this before every tool name (a server's own namespace)")
	fs.IntVar(&o.stderrFlood, "stderr-flood", 0, "write N bytes of log lines to stderr before serving")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if _, err := os.Stat(o.exitIf); o.exitIf != "" && err == nil {
		fmt.Fprintln(os.Stderr, "mcp-test-server: refusing to start again")
		return 4
	}
	floodStderr(o.stderrFlood)
	if o.exitAtStart {
		fmt.Fprintln(os.Stderr, "mcp-test-server: cannot open the database: permission denied")
		return 3
	}
	time.Sleep(o.slowStart)
	if o.raw != "" {
		return runRaw(o)
	}
	return runSDK(o)
}

type options struct {
	tools, page   int
	slowStart     time.Duration
	garbage       bool
	exitAtStart   bool
	invalidSchema bool
	danglingRef   bool
	readFile      bool
	raw           string
	bigBytes      int64
	idLast        bool
	exitIf, addIf string
	stderrFlood   int
	namePrefix    string
}

func floodStderr(n int) {
	line := strings.Repeat("stderr noise ", 10) + "\n"
	for written := 0; written < n; written += len(line) {
		os.Stderr.WriteString(line)
	}
}

// runSDK serves the well-behaved server.
func runSDK(o options) int {
	srv := mcp.NewServer(&mcp.Implementation{Name: "mcp-test-server", Version: "1"}, &mcp.ServerOptions{PageSize: o.page})
	addTools(srv, o)
	var out io.WriteCloser = os.Stdout
	if o.garbage {
		fmt.Println("mcp-test-server starting (this line is not JSON-RPC)")
		out = garbageWriter{os.Stdout}
	}
	err := srv.Run(context.Background(), &mcp.IOTransport{Reader: os.Stdin, Writer: out})
	if err != nil && !strings.Contains(err.Error(), "EOF") && !strings.Contains(err.Error(), "closed") {
		fmt.Fprintln(os.Stderr, "mcp-test-server:", err)
		return 1
	}
	return 0
}

// garbageWriter puts a non-JSON line before every message.
type garbageWriter struct{ w io.WriteCloser }

func (g garbageWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(g.w, "debug: sending a message\n"); err != nil {
		return 0, err
	}
	return g.w.Write(p)
}

func (g garbageWriter) Close() error { return g.w.Close() }

// schema builds an object schema from "name:type" properties, all required.
func schema(props ...string) map[string]any {
	p := map[string]any{}
	req := []string{}
	for _, kv := range props {
		name, typ, _ := strings.Cut(kv, ":")
		p[name] = map[string]any{"type": typ}
		req = append(req, name)
	}
	return map[string]any{"type": "object", "properties": p, "required": req}
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func args[T any](req *mcp.CallToolRequest) (T, error) {
	var v T
	if len(req.Params.Arguments) > 0 {
		if err := json.Unmarshal(req.Params.Arguments, &v); err != nil {
			return v, err
		}
	}
	return v, nil
}

func ptr[T any](v T) *T { return &v }
