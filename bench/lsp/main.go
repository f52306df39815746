// Command lsp measures code intelligence for `make bench`
// (bench/sections/55-lsp.sh) on a small generated Go module, with gopls
// warm, rounds interleaved so a noisy machine slows every call alike:
//
//   - edit_file without language servers (STEERABLE_LSP_DEFAULTS=0, a second
//     sidecar): the baseline;
//   - edit_file with data.diagnostics from a warm gopls: the added latency;
//   - the same edit followed by `go vet` of the package through bash, the
//     loop a model runs without diagnostics;
//   - the lsp tool's definition round trip (p50);
//   - the resident memory of each language server that ran (gopls, and
//     pyright and typescript-language-server when installed), summed over
//     its process tree.
//
// Figures only: nothing here fails the build.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"steerable.dev/sidecar/bench/internal/benchkit"
)

func main() {
	bin := flag.String("bin", "bin/steerable-sidecar", "the sidecar binary")
	runs := flag.Int("runs", 20, "rounds")
	flag.Parse()
	if abs, err := filepath.Abs(*bin); err == nil {
		*bin = abs
	}
	if err := run(*bin, *runs); err != nil {
		fmt.Printf("lsp: MISS (%v)\n", err)
	}
}

const shapes = `package shapes

// Shape is anything with an area.
type Shape interface{ Area() int }

// Square is a Shape.
type Square struct{ Side int }

// Area is the square's area.
func (s Square) Area() int { return s.Side * s.Side }

// Total adds the areas.
func Total(shapes []Shape) int {
	n := 0
	for _, s := range shapes {
		n += s.Area()
	}
	return n
}
`

const use = "package shapes\n\nfunc use() int { return Total([]Shape{Square{Side: 2}}) }\n"

// project writes the module, and a Python and a TypeScript file so their
// servers start too when installed.
func project(dir string) error {
	files := map[string]string{"go.mod": "module example.com/shapes\n\ngo 1.22\n", "shapes.go": shapes, "use.go": use,
		"extra.py": "def f(x: int) -> int:\n    return x\n", "extra.ts": "export function f(x: number): number { return x; }\n",
		"tsconfig.json": `{"compilerOptions":{"strict":true}}`}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func run(bin string, runs int) error {
	state, err := os.MkdirTemp("", "bench-lsp-state-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(state)
	env := []string{"STEERABLE_STATE_DIR=" + state, "STEERABLE_LSP_DIAGNOSTICS_WAIT_MS=10000"}
	withLSP, err := benchkit.StartSidecar(bin, "lsp", env...)
	if err != nil {
		return err
	}
	defer withLSP.Close()
	plain, err := benchkit.StartSidecar(bin, "lsp-off", append(env, "STEERABLE_LSP_DEFAULTS=0")...)
	if err != nil {
		return err
	}
	defer plain.Close()
	for _, s := range []*benchkit.Sidecar{withLSP, plain} {
		if err := project(s.Dir); err != nil {
			return err
		}
		if _, err := s.Invoke("read_file", map[string]any{"path": "use.go"}); err != nil {
			return err
		}
	}
	def := map[string]any{"operation": "definition", "path": "use.go", "line": 3, "symbol": "Total"}
	if _, err := withLSP.Invoke("lsp", def); err != nil {
		return fmt.Errorf("gopls does not answer (is it installed? go install golang.org/x/tools/gopls@v0.23.0): %w", err)
	}
	vet := map[string]any{"command": "GOCACHE=$TMPDIR/gocache GOTOOLCHAIN=local GOPROXY=off go vet ."}
	if _, err := withLSP.Invoke("bash", vet); err != nil { // warm the build cache
		return err
	}
	var t timings
	for i := range runs {
		if err := t.round(i, withLSP, plain, def, vet); err != nil {
			return err
		}
	}
	fmt.Printf("%-52s %10s %10s %10s %10s\n", "call (gopls warm, "+strconv.Itoa(runs)+" rounds)", "median", "p10", "p90", "over base")
	ref := benchkit.Median(t.base)
	row("edit_file, no language server", t.base, 0)
	row(fmt.Sprintf("edit_file with diagnostics (%d pending)", t.pending), t.diag, ref)
	row("edit_file + bash `go vet .`", t.vetted, ref)
	row("lsp definition", t.defs, 0)
	return servers(withLSP, state)
}

// timings are the rounds' figures.
type timings struct {
	base, diag, vetted, defs []time.Duration
	pending                  int
}

// round times one edit without and with diagnostics, the same edit
// followed by go vet, and one lsp definition. Odd rounds edit back.
func (t *timings) round(i int, withLSP, plain *benchkit.Sidecar, def, vet map[string]any) error {
	old, new := "Side: 2", "Side: 3"
	if i%2 == 1 {
		old, new = new, old
	}
	edit := map[string]any{"path": "use.go", "edits": []map[string]string{{"oldText": old, "newText": new}}}
	d, _, err := timed(plain, "edit_file", edit)
	if err != nil {
		return err
	}
	t.base = append(t.base, d)
	d, raw, err := timed(withLSP, "edit_file", edit)
	if err != nil {
		return err
	}
	var data struct {
		Diagnostics *struct {
			Pending bool `json:"pending"`
		} `json:"diagnostics"`
	}
	_ = json.Unmarshal(raw, &data)
	if data.Diagnostics == nil {
		return fmt.Errorf("edit_file carried no diagnostics")
	}
	if data.Diagnostics.Pending {
		t.pending++
	}
	t.diag = append(t.diag, d)
	back := map[string]any{"path": "use.go", "edits": []map[string]string{{"oldText": new, "newText": old}}}
	start := time.Now()
	if _, err := plain.Invoke("edit_file", back); err != nil {
		return err
	}
	if _, err := plain.Invoke("bash", vet); err != nil {
		return err
	}
	t.vetted = append(t.vetted, time.Since(start))
	if _, err := plain.Invoke("edit_file", edit); err != nil { // forward again, for the next round's baseline
		return err
	}
	d, _, err = timed(withLSP, "lsp", def)
	if err != nil {
		return err
	}
	t.defs = append(t.defs, d)
	return nil
}

// servers starts the other servers with one call each and prints every
// server's resident memory.
func servers(s *benchkit.Sidecar, state string) error {
	for _, f := range []string{"extra.py", "extra.ts"} {
		_, _ = s.Invoke("lsp", map[string]any{"operation": "documentSymbols", "path": f}) // absent servers are fine
	}
	rss := map[string]int64{}
	marker := []byte("XDG_CACHE_HOME=" + state + "/lsp-cache/")
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		i := bytes.Index(env, marker)
		if err != nil || i < 0 {
			continue
		}
		name, _, _ := strings.Cut(string(env[i+len(marker):]), "\x00")
		name = strings.SplitN(name, "/", 2)[0]
		if n, err := benchkit.RSS(pid); err == nil {
			rss[name] += n
		}
	}
	if len(rss) == 0 {
		return fmt.Errorf("no language server process found")
	}
	for _, name := range []string{"go", "python", "typescript"} {
		if n, ok := rss[name]; ok {
			fmt.Printf("%-52s %7d MiB resident (its whole process tree)\n", "language server "+name, n>>20)
		} else {
			fmt.Printf("%-52s not installed\n", "language server "+name)
		}
	}
	return nil
}

func timed(s *benchkit.Sidecar, tool string, args any) (time.Duration, json.RawMessage, error) {
	start := time.Now()
	raw, err := s.Invoke(tool, args)
	return time.Since(start), raw, err
}

func row(name string, ds []time.Duration, ref time.Duration) {
	m := benchkit.Median(ds)
	over := "-"
	if ref > 0 {
		over = benchkit.Millis(m - ref)
	}
	fmt.Printf("%-52s %10s %10s %10s %10s\n", name, benchkit.Millis(m),
		benchkit.Millis(benchkit.Percentile(ds, 10)), benchkit.Millis(benchkit.Percentile(ds, 90)), over)
}
