// Command media measures read_file on what is not text, for `make bench`
// (section 35-media): a 4000×3000 JPEG decoded, scaled to the model's
// limit and encoded, against ImageMagick's `convert -resize` of the same
// file to the same size, interleaved in one run; the text of a 100-page PDF
// (pages/s) against poppler's pdftotext; the peak RSS of each; and
// read_file of a 4 KiB text file against a base binary (-base), to show the type sniffing costs the text path nothing. A
// reference that is not installed prints MISS; a missed target reads MISS
// and never fails the run.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"steerable.dev/sidecar/bench/internal/benchkit"
	"steerable.dev/sidecar/internal/mediatest"
)

func main() {
	bin := flag.String("bin", os.Getenv("BIN"), "the steerable-sidecar binary")
	base := flag.String("base", os.Getenv("BASE_BIN"), "the binary before, for the 4 KiB text row ('' skips it)")
	runs := flag.Int("runs", 7, "interleaved runs per row")
	flag.Parse()
	for _, p := range []*string{bin, base} {
		if abs, err := filepath.Abs(*p); err == nil && *p != "" {
			*p = abs
		}
	}
	dir, err := os.MkdirTemp("", "media-bench-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	dir, _ = filepath.EvalSymlinks(dir)
	write(dir, "photo.jpg", mediatest.JPEG(mediatest.Photo(4000, 3000)))
	write(dir, "report.pdf", mediatest.PDF(mediatest.PDFOptions{Pages: 100}))
	write(dir, "small.txt", []byte(strings.Repeat("a line of text, 64 bytes long, as source files often have....\n", 64)))
	rows := []row{}
	rows = append(rows, benchImage(*bin, dir, *runs)...)
	rows = append(rows, benchPDF(*bin, dir, *runs)...)
	if *base != "" {
		rows = append(rows, benchText(*bin, *base, dir, *runs))
	}
	fmt.Printf("%-58s %-30s %-30s %-8s %-10s %s\n", "media", "steerable-sidecar", "reference", "ratio", "target", "")
	fmt.Println(strings.Repeat("-", 146))
	for _, r := range rows {
		fmt.Printf("%-58s %-30s %-30s %-8s %-10s %s\n", r.metric, r.ours, r.reference, r.ratio, r.target, r.verdict)
	}
}

type row struct{ metric, ours, reference, ratio, target, verdict string }

func write(dir, name string, b []byte) {
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench/media:", err)
	os.Exit(1)
}

func sidecar(bin, dir string) *benchkit.Proc {
	cmd := exec.Command(bin, "--quiet-ready", "--log-level", "error", "--cwd", dir)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	p, err := benchkit.Start(cmd)
	if err != nil {
		fail(err)
	}
	return p
}

// timed runs fn and returns its wall time.
func timed(fn func() error) time.Duration {
	t0 := time.Now()
	if err := fn(); err != nil {
		fail(err)
	}
	return time.Since(t0)
}

// command runs a reference command and returns its wall time and peak RSS.
func command(name string, args ...string) (time.Duration, int64, error) {
	cmd := exec.Command(name, args...)
	t0 := time.Now()
	out, err := cmd.CombinedOutput()
	d := time.Since(t0)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %v: %s", name, err, out)
	}
	return d, maxRSS(cmd.ProcessState), nil
}

// benchImage: read_file of the JPEG (each run a fresh sidecar, so its
// peak RSS is this read's) against convert -resize, interleaved.
func benchImage(bin, dir string, runs int) []row {
	convert, _ := exec.LookPath("convert")
	var ours, ref []time.Duration
	var ourRSS, refRSS int64
	for range runs {
		p := sidecar(bin, dir)
		ours = append(ours, timed(func() error { _, err := p.Invoke("read_file", map[string]any{"path": "photo.jpg"}); return err }))
		rss, _ := benchkit.PeakRSS(p.Pid())
		ourRSS = max(ourRSS, rss)
		p.Close()
		if convert != "" {
			d, rss, err := command(convert, filepath.Join(dir, "photo.jpg"), "-resize", "1568x1568", filepath.Join(dir, "out.jpg"))
			if err != nil {
				fail(err)
			}
			ref, refRSS = append(ref, d), max(refRSS, rss)
		}
	}
	r := row{metric: "read_file of a 4000×3000 JPEG → 1568×1176, median", ours: benchkit.Millis(benchkit.Median(ours)), target: "≤ 1.5×"}
	m := row{metric: "  peak RSS", ours: mib(ourRSS), target: "–"}
	if convert == "" {
		r.reference, r.verdict = "convert not installed", "MISS"
		return []row{r, m}
	}
	ratio := float64(benchkit.Median(ours)) / float64(benchkit.Median(ref))
	r.reference, r.ratio, r.verdict = "convert -resize "+benchkit.Millis(benchkit.Median(ref)), fmt.Sprintf("%.2f×", ratio), benchkit.Verdict(ratio <= 1.5)
	m.reference = "convert " + mib(refRSS)
	return []row{r, m}
}

// benchPDF: the text of all 100 pages, 20 a call, against pdftotext of the
// whole file.
func benchPDF(bin, dir string, runs int) []row {
	pdftotext, _ := exec.LookPath("pdftotext")
	var ours, ref []time.Duration
	var ourRSS, refRSS int64
	for range runs {
		p := sidecar(bin, dir)
		ours = append(ours, timed(func() error {
			for first := 1; first <= 100; first += 20 {
				if _, err := p.Invoke("read_file", map[string]any{"path": "report.pdf", "pages": fmt.Sprintf("%d-%d", first, first+19)}); err != nil {
					return err
				}
			}
			return nil
		}))
		rss, _ := benchkit.PeakRSS(p.Pid())
		ourRSS = max(ourRSS, rss)
		p.Close()
		if pdftotext != "" {
			d, rss, err := command(pdftotext, filepath.Join(dir, "report.pdf"), filepath.Join(dir, "out.txt"))
			if err != nil {
				fail(err)
			}
			ref, refRSS = append(ref, d), max(refRSS, rss)
		}
	}
	rate := 100 / benchkit.Median(ours).Seconds()
	r := row{metric: "read_file of a 100-page PDF's text (5 calls of 20 pages)", ours: fmt.Sprintf("%.0f pages/s", rate), target: "≥ 20/s", verdict: benchkit.Verdict(rate >= 20)}
	m := row{metric: "  peak RSS", ours: mib(ourRSS), target: "–"}
	if pdftotext == "" {
		r.reference = "pdftotext not installed"
	} else {
		r.reference = fmt.Sprintf("pdftotext %.0f pages/s", 100/benchkit.Median(ref).Seconds())
		r.ratio = fmt.Sprintf("%.2f×", float64(benchkit.Median(ours))/float64(benchkit.Median(ref)))
		m.reference = "pdftotext " + mib(refRSS)
	}
	return []row{r, m}
}

// benchText: read_file of 4 KiB, sequential round trips, this binary and
// the one before interleaved in rounds; the medians of the rounds' p50s.
func benchText(bin, base, dir string, runs int) row {
	var ours, before []time.Duration
	args := map[string]any{"name": "read_file", "arguments": map[string]any{"path": "small.txt"}}
	for range runs {
		for i, b := range []string{bin, base} {
			p := sidecar(b, dir)
			p.RoundTrips(200, "tool.invoke", args) // warm up
			d, err := p.RoundTrips(2000, "tool.invoke", args)
			p.Close()
			if err != nil {
				fail(err)
			}
			if i == 0 {
				ours = append(ours, benchkit.Median(d))
			} else {
				before = append(before, benchkit.Median(d))
			}
		}
	}
	o, b := benchkit.Median(ours), benchkit.Median(before)
	ratio := float64(o) / float64(b)
	return row{metric: "read_file of a 4 KiB text file, sequential p50", ours: micros(o), reference: "before this work " + micros(b),
		ratio: fmt.Sprintf("%.2f×", ratio), target: "not slower", verdict: benchkit.Verdict(ratio <= 1.05)}
}

func mib(b int64) string            { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }
func micros(d time.Duration) string { return fmt.Sprintf("%.1f µs", float64(d)/1e3) }
