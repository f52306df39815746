// Command search measures tool_search for `make bench` (section
// 60-search): index build, incremental add/remove, search latency in
// process and as tool.invoke round trips through the binary, and the
// ready-marker time with host tools registered right after boot. The
// reference is the independent plain-Go BM25 (internal/toolsearch/refbm25): a
// brute-force scan over pre-tokenised documents, the floor for latency.
// Figures are printed, never asserted; a missed target prints MISS.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"steerable.dev/sidecar/bench/internal/benchkit"
	"steerable.dev/sidecar/internal/toolsearch"
	"steerable.dev/sidecar/internal/toolsearch/refbm25"
)

func main() {
	bin := flag.String("bin", os.Getenv("BIN"), "the steerable-sidecar binary")
	flag.Parse()
	fmt.Println("tool_search — BM25 over the deferred tier (reference: independent plain-Go BM25, brute force, in process)")
	fmt.Printf("%-6s %-40s %14s %14s %7s  %s\n", "tools", "measure", "ours", "reference", "ratio", "target")
	for _, n := range []int{1000, 10000} {
		docs := inventory(n, uint64(n))
		inProcess(n, docs)
		if *bin != "" {
			if err := throughBinary(*bin, n, docs); err != nil {
				fmt.Printf("%-6d binary run failed: %v\n", n, err)
			}
		}
	}
	if *bin != "" {
		if err := bootTimes(*bin); err != nil {
			fmt.Printf("boot run failed: %v\n", err)
		}
	}
}

func row(n any, measure string, ours, ref time.Duration, target string) {
	r, ratio := "-", "-"
	if ref > 0 {
		r, ratio = fmtDur(ref), fmt.Sprintf("%.2gx", float64(ours)/float64(ref))
	}
	fmt.Printf("%-6v %-40s %14s %14s %7s  %s\n", n, measure, fmtDur(ours), r, ratio, target)
}

func fmtDur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= time.Millisecond:
		return benchkit.Millis(d)
	}
	return fmt.Sprintf("%.1f µs", float64(d)/1e3)
}

// verdict prints OK or MISS against a ceiling.
func verdict(got, ceiling time.Duration) string {
	if got <= ceiling {
		return "≤ " + fmtDur(ceiling) + " OK"
	}
	return "≤ " + fmtDur(ceiling) + " MISS"
}

func timeIt(fn func()) time.Duration {
	start := time.Now()
	fn()
	return time.Since(start)
}

// spread is "median [min–max]" of repeated runs.
func spread(samples []time.Duration) string {
	lo, hi := benchkit.Range(samples)
	return fmt.Sprintf("median of %d [%s – %s]", len(samples), fmtDur(lo), fmtDur(hi))
}

func inProcess(n int, docs []toolsearch.Doc) {
	an, err := toolsearch.NewAnalyzer()
	if err != nil {
		panic(err)
	}
	refDocs := make([]refbm25.Doc, len(docs))
	for i, d := range docs {
		refDocs[i] = refbm25.Doc{Name: d.Name, Description: d.Description}
	}
	var builds, refBuilds []time.Duration
	var ix *toolsearch.Index
	var corpus *refbm25.Corpus
	for range 5 {
		builds = append(builds, timeIt(func() { ix = toolsearch.NewIndex(an); ix.Apply(docs, nil) }))
		refBuilds = append(refBuilds, timeIt(func() { corpus = refbm25.New(refDocs) }))
	}
	build, refBuild := benchkit.Median(builds), benchkit.Median(refBuilds)
	target := spread(builds)
	if n == 1000 {
		target = verdict(build, 200*time.Millisecond) + "  " + target
	}
	row(n, "index build (in process)", build, refBuild, target)

	extra := inventory(500, 99)
	var adds, removes []time.Duration
	for i, d := range extra {
		d.Name = fmt.Sprintf("extra_%d_%s", i, d.Name)
		adds = append(adds, timeIt(func() { ix.Apply([]toolsearch.Doc{d}, nil) }))
		removes = append(removes, timeIt(func() { ix.Apply(nil, []string{d.Name}) }))
	}
	row(n, "add one tool p50 (ref: rebuild)", benchkit.Median(adds), refBuild, "p99 "+fmtDur(benchkit.Percentile(adds, 99)))
	row(n, "remove one tool p50 (ref: rebuild)", benchkit.Median(removes), refBuild, "p99 "+fmtDur(benchkit.Percentile(removes, 99)))

	qs := queries(300, uint64(n))
	var ours, ref []time.Duration
	for _, q := range qs {
		ours = append(ours, timeIt(func() { ix.Search(q, toolsearch.DefaultLimit) }))
		ref = append(ref, timeIt(func() { corpus.Rank(q, toolsearch.DefaultLimit) }))
	}
	row(n, "search p50 (in process)", benchkit.Median(ours), benchkit.Median(ref), "")
	row(n, "search p99 (in process)", benchkit.Percentile(ours, 99), benchkit.Percentile(ref, 99), "")
}

func throughBinary(bin string, n int, docs []toolsearch.Doc) error {
	s, _, err := spawn(bin)
	if err != nil {
		return err
	}
	defer s.Close()
	descs := make([]map[string]any, len(docs))
	for i, d := range docs {
		descs[i] = map[string]any{"name": d.Name, "description": d.Description, "parameters": map[string]any{"type": "object"}, "exposure": "deferred"}
	}
	var regErr error
	reg := timeIt(func() { _, regErr = s.Call("host_tools.register", map[string]any{"tools": descs}) })
	if regErr != nil {
		return regErr
	}
	row(n, "host_tools.register (index not built)", reg, 0, "")
	qs := queries(300, uint64(n)+1)
	var firstErr error
	first := timeIt(func() { firstErr = toolSearch(s, qs[0]) })
	if firstErr != nil {
		return firstErr
	}
	row(n, "first tool_search (builds the index)", first, 0, "")
	var rts []time.Duration
	for _, q := range qs {
		var err error
		rts = append(rts, timeIt(func() { err = toolSearch(s, q) }))
		if err != nil {
			return err
		}
	}
	refDocs := make([]refbm25.Doc, len(docs))
	for i, d := range docs {
		refDocs[i] = refbm25.Doc{Name: d.Name, Description: d.Description}
	}
	corpus := refbm25.New(refDocs)
	var ref []time.Duration
	for _, q := range qs {
		ref = append(ref, timeIt(func() { corpus.Rank(q, toolsearch.DefaultLimit) }))
	}
	p50 := benchkit.Median(rts)
	target := ""
	if n == 1000 {
		target = verdict(p50, time.Millisecond)
	}
	row(n, "tool_search p50 (tool.invoke round trip)", p50, benchkit.Median(ref), target)
	row(n, "tool_search p99 (tool.invoke round trip)", benchkit.Percentile(rts, 99), benchkit.Percentile(ref, 99), "")
	reg = timeIt(func() { _, regErr = s.Call("host_tools.register", map[string]any{"tools": descs}) })
	row(n, "re-register all (index live, synchronous)", reg, 0, "")
	return regErr
}

// bootTimes compares the ready marker of a plain boot with boots followed
// at once by 1,000 host tools: the index is not built at boot, so the
// marker does not move.
func bootTimes(bin string) error {
	descs := make([]map[string]any, 0, 1000)
	for _, d := range inventory(1000, 5) {
		descs = append(descs, map[string]any{"name": d.Name, "description": d.Description, "parameters": map[string]any{"type": "object"}, "exposure": "deferred"})
	}
	var plain, loaded, regs []time.Duration
	for range 9 {
		s, ready, err := spawn(bin)
		if err != nil {
			return err
		}
		plain = append(plain, ready)
		s.Close()
		s, ready, err = spawn(bin)
		if err != nil {
			return err
		}
		loaded = append(loaded, ready)
		var regErr error
		regs = append(regs, timeIt(func() { _, regErr = s.Call("host_tools.register", map[string]any{"tools": descs}) }))
		s.Close()
		if regErr != nil {
			return regErr
		}
	}
	p, l := benchkit.Median(plain), benchkit.Median(loaded)
	row("boot", "ready marker, 1000 host tools after boot", l, p, "ref: plain boot; "+spread(loaded))
	row("boot", "ready + host_tools.register of 1000", l+benchkit.Median(regs), p, spread(regs)+" for the register")
	initTime, err := bleveInit(bin)
	if err != nil {
		return err
	}
	row("boot", "bleve package init (inittrace)", initTime, 0, "all tool_search adds to boot: the index is built on first search")
	return nil
}

// bleveInit sums the package-init time of bleve and its dependencies, the
// only boot-path cost tool_search adds (GODEBUG=inittrace=1).
func bleveInit(bin string) (time.Duration, error) {
	cmd := exec.Command(bin, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return 0, err
	}
	var total time.Duration
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		// init PKG @T ms, D ms clock, …
		if len(f) > 5 && f[0] == "init" && strings.Contains(f[1], "blevesearch") {
			if ms, err := strconv.ParseFloat(f[4], 64); err == nil {
				total += time.Duration(ms * float64(time.Millisecond))
			}
		}
	}
	return total, nil
}
