package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"steerable.dev/sidecar/bench/internal/benchkit"
)

// roundTripWindow is how long each of the three runs writes and reads.
const roundTripWindow = 1500 * time.Millisecond

// benchRoundTrips: write_file then read_file of small files, pairs per
// second, the sidecar against the reference MCP filesystem server, both
// through the same client in the same run.
func benchRoundTrips(bin, mcp, dir string) row {
	ws := filepath.Join(dir, "rt")
	content := strings.Repeat("small file line\n", 64) // 1 KiB
	c, err := sidecar(bin, dir)
	if err != nil {
		fail(err)
	}
	ours := rate(func(i int) error {
		p := fmt.Sprintf("%s/f%d.txt", ws, i%16)
		if _, err := c.Invoke("write_file", map[string]any{"path": p, "content": content}); err != nil {
			return err
		}
		_, err := c.Invoke("read_file", map[string]any{"path": p})
		return err
	})
	c.Close()
	r := row{metric: "write_file+read_file round trips /s", ours: fmt.Sprintf("%.0f", ours), reference: "not installed (npm)", ratio: "-", target: "-", verdict: ""}
	if mcp == "" {
		return r
	}
	ref, err := mcpRate(mcp, dir, filepath.Join(dir, "rt-mcp"), content)
	if err != nil {
		r.reference = "error: " + err.Error()
		return r
	}
	r.reference = fmt.Sprintf("MCP filesystem %.0f", ref)
	r.ratio = fmt.Sprintf("%.2fx", ours/ref)
	return r
}

func mcpRate(mcp, dir, ws, content string) (float64, error) {
	cmd := exec.Command("node", mcp, dir) // its stderr chats: discarded
	cmd.Dir = dir
	c, err := benchkit.Start(cmd)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	if err := c.MCPHandshake(); err != nil {
		return 0, err
	}
	if err := c.MCPTool("create_directory", map[string]any{"path": ws}); err != nil {
		return 0, err
	}
	return rate(func(i int) error {
		p := fmt.Sprintf("%s/f%d.txt", ws, i%16)
		if err := c.MCPTool("write_file", map[string]any{"path": p, "content": content}); err != nil {
			return err
		}
		return c.MCPTool("read_text_file", map[string]any{"path": p})
	}), nil
}

// rate runs op for roundTripWindow three times and returns the median of
// the pairs per second.
func rate(op func(i int) error) float64 {
	var rates []float64
	for range 3 {
		n, t := 0, time.Now()
		for time.Since(t) < roundTripWindow {
			if err := op(n); err != nil {
				fail(err)
			}
			n++
		}
		rates = append(rates, float64(n)/time.Since(t).Seconds())
	}
	sort.Float64s(rates)
	return rates[1]
}
