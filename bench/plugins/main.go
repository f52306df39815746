// Command plugins measures the plugin runtime for `make bench` (section
// 90-plugins), each figure beside its reference in the same run:
//
//   - start to registered: a plugins.Manager loading one server (process
//     start, initialize, tools/list, registration) in process, and the
//     sidecar's spawn-to-ready with that plugin against without it; for the
//     Go test server and for @modelcontextprotocol/server-everything;
//   - per-call overhead: tool.invoke of a plugin tool through the sidecar
//     against the same server called directly with the official Go SDK
//     client (target ≤ 1.2× + 100 µs);
//   - a server listing 500 tools (target: registered ≤ 100 ms).
//
// With -base (BASE_BIN) another build is measured beside -bin in the same
// interleaved rounds: the before and after of a change, on the same load.
//
// Figures are printed, never asserted; a missed target prints MISS.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"steerable.dev/sidecar/bench/internal/benchkit"
)

func main() {
	bin := flag.String("bin", os.Getenv("BIN"), "the steerable-sidecar binary")
	base := flag.String("base", os.Getenv("BASE_BIN"), "another build to measure beside it, interleaved (a before/after; empty: none)")
	server := flag.String("server", "", "the MCP test server (bench/plugins/testserver), built")
	everything := flag.String("everything", "", "server-everything's dist/index.js (empty: MISS)")
	runs := flag.Int("runs", 10, "repetitions of each start")
	calls := flag.Int("calls", 2000, "round trips of each per-call figure")
	flag.Parse()
	work, err := os.MkdirTemp("", "bench-plugins-")
	if err != nil {
		fmt.Println("MISS:", err)
		return
	}
	defer os.RemoveAll(work)
	goServer := target{name: "Go test server", argv: []string{*server, "-read-file=false"}, tool: "echo", args: map[string]any{"text": "x"}}
	targets := []target{goServer}
	if *everything != "" {
		targets = append(targets, target{name: "server-everything", argv: []string{"node", *everything, "stdio"}, tool: "echo", args: map[string]any{"message": "x"}})
	} else {
		fmt.Println("server-everything: MISS (not installed: npm install --prefix bench/.cache/plugins @modelcontextprotocol/server-everything)")
	}
	fmt.Printf("%-34s %-44s %14s %14s  %s\n", "plugin", "measure", "ours", "reference", "target")
	for _, t := range targets {
		startFigures(t, *bin, work, *runs)
		callFigures(t, *bin, *base, work, *calls)
	}
	many := goServer
	many.name, many.argv = "Go test server, 500 tools", append(append([]string{}, goServer.argv...), "-tools", "500")
	manyTools(many, goServer, *runs)
	if *bin != "" && *base != "" {
		readyBeside(many, *bin, *base, work, *runs)
	}
}

// target is one MCP server to measure and the tool its calls use.
type target struct {
	name string
	argv []string
	tool string
	args map[string]any
}

func row(plugin, measure, ours, ref, tgt string) {
	fmt.Printf("%-34s %-44s %14s %14s  %s\n", plugin, measure, ours, ref, tgt)
}

func dur(d time.Duration) string {
	if d >= time.Millisecond {
		return benchkit.Millis(d)
	}
	return fmt.Sprintf("%.0f µs", float64(d)/1e3)
}

// config writes a plugins config with the target as plugin "p".
func config(dir string, t target) (string, error) {
	path := filepath.Join(dir, "plugins.json")
	b := fmt.Sprintf(`{"plugins":{"p":{"command":%q,"args":%s}}}`, t.argv[0], jsonList(t.argv[1:]))
	return path, os.WriteFile(path, []byte(b), 0o644)
}

func jsonList(s []string) string {
	out := "["
	for i, a := range s {
		if i > 0 {
			out += ","
		}
		out += fmt.Sprintf("%q", a)
	}
	return out + "]"
}
