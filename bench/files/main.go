// Command files measures the file tools for `make bench` (section
// 30-files): read_file of a 1 GiB file against sha256sum, edit_file on a
// 10 MiB file, edit_file and apply_patch on 300,000 identical lines (time
// and cancel latency), and write_file/read_file round trips against the reference
// MCP filesystem server, both driven by the same JSON-RPC client (package
// benchkit), and what recording checkpoints costs write_file and edit_file. It prints one table; a missed target reads MISS and never fails
// the run.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	bin := flag.String("bin", os.Getenv("BIN"), "the steerable-sidecar binary")
	cache := flag.String("cache", os.Getenv("BENCH_CACHE"), "scratch directory for the big files")
	mcp := flag.String("mcp", "", "dist/index.js of @modelcontextprotocol/server-filesystem ('' skips the reference)")
	bigSize := flag.Int64("big", 1<<30, "size of the read_file test file")
	only := flag.String("only", "", "run one group of rows: big, edit, repeated, roundtrip or checkpoints ('' runs all)")
	rounds := flag.Int("rounds", 201, "calls per sidecar in each checkpoints row")
	flag.Parse()
	for _, p := range []*string{bin, mcp} {
		if abs, err := filepath.Abs(*p); err == nil && *p != "" {
			*p = abs
		}
	}
	dir, err := os.MkdirTemp(*cache, "files-bench-")
	if err != nil {
		fail(err)
	}
	cleanup = func() { os.RemoveAll(dir) } // the big file goes with it
	defer cleanup()
	if dir, err = filepath.Abs(dir); err == nil {
		dir, err = filepath.EvalSymlinks(dir)
	}
	if err != nil {
		fail(err)
	}

	groups := []struct {
		name string
		run  func() []row
	}{
		{"big", func() []row { return benchBigRead(*bin, dir, *bigSize) }},
		{"edit", func() []row { return []row{benchEdit(*bin, dir)} }},
		{"repeated", func() []row { return benchRepeated(*bin, dir) }},
		{"roundtrip", func() []row { return []row{benchRoundTrips(*bin, *mcp, dir)} }},
		{"checkpoints", func() []row { return benchCheckpoints(*bin, dir, *rounds) }},
	}
	var rows []row
	for _, g := range groups {
		if *only == "" || *only == g.name {
			rows = append(rows, g.run()...)
		}
	}
	printTable(rows)
}

// row is one line of the report.
type row struct {
	metric, ours, reference, ratio, target, verdict string
}

func printTable(rows []row) {
	fmt.Printf("%-56s %-40s %-40s %-8s %-10s %s\n", "files", "steerable-sidecar", "reference", "ratio", "target", "")
	fmt.Println(strings.Repeat("-", 140))
	for _, r := range rows {
		fmt.Printf("%-56s %-40s %-40s %-8s %-10s %s\n", r.metric, r.ours, r.reference, r.ratio, r.target, r.verdict)
	}
}

// cleanup removes the scratch directory; fail runs it too.
var cleanup = func() {}

func fail(err error) {
	cleanup()
	fmt.Fprintln(os.Stderr, "bench/files:", err)
	os.Exit(1)
}
