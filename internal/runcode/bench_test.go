package runcode

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"steerable.dev/sidecar/protocol"
)

// BenchmarkRun is a program of `return 1` per backend beside a bare start
// of the same interpreter (the in-process part of what `make bench`
// reports through the binary).
func BenchmarkRun(b *testing.B) {
	for _, backend := range backends {
		b.Run(backend, func(b *testing.B) {
			e := session(b, backend)
			in, err := e.rt.Interpreter()
			if err != nil {
				b.Fatal(err)
			}
			b.Run("bare", func(b *testing.B) {
				for range b.N {
					if err := exec.Command(in.Path, "-I", "-S", "-c", "pass").Run(); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("return1", func(b *testing.B) {
				for range b.N {
					runWith(b, e.rt, "return 1", nil)
				}
			})
		})
	}
}

// BenchmarkNestedRead is the bridge's cost per nested call: programs of 30
// tools.read_file calls answered with a 4 KiB result, against programs of
// none; the difference divided by 30 is the figure (ns/call).
func BenchmarkNestedRead(b *testing.B) {
	e := session(b, available(b))
	content := strings.Repeat("0123456789abcde\n", 256)
	read := func(context.Context, int, string, json.RawMessage) protocol.ToolResult {
		return protocol.ToolResult{Success: true, Data: map[string]any{"content": content, "path": "/ws/f.txt", "bytes": len(content)}}
	}
	const reads = 30
	var none, thirty time.Duration
	for range b.N {
		start := time.Now()
		runWith(b, e.rt, "return 1", read)
		none += time.Since(start)
		start = time.Now()
		runWith(b, e.rt, fmt.Sprintf("for i in range(%d):\n    tools.read_file(path='f.txt')\nreturn 1", reads), read)
		thirty += time.Since(start)
	}
	b.ReportMetric(float64(thirty-none)/float64(b.N*reads), "ns/call")
}
