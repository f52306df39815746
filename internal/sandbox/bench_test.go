package sandbox

import (
	"context"
	"os/exec"
	"testing"
)

// BenchmarkRunTrue is `bash -c true` through Run per backend, beside a
// bare exec of the same command (the in-process part of the figure that
// `make bench` reports through the binary).
func BenchmarkRunTrue(b *testing.B) {
	b.Run("bare", func(b *testing.B) {
		for range b.N {
			if err := exec.Command("bash", "-c", "true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, name := range []string{"none", "landlock", "bwrap"} {
		b.Run(name, func(b *testing.B) {
			s := benchSandbox(b, name)
			for range b.N {
				res, err := s.Run(context.Background(), Command{Argv: []string{"bash", "-c", "true"}, Dir: s.TempDir()}, RunOptions{MaxOutput: 4096})
				if err != nil || res.ExitCode != 0 {
					b.Fatal(err, res)
				}
			}
		})
	}
}

func benchSandbox(b *testing.B, name string) *Sandbox {
	var be Backend
	switch name {
	case "none":
		be = None{}
	case "landlock":
		be = NewLandlock(OpenSelf("x"))
	case "bwrap":
		be = NewBwrap("")
	}
	if err := be.Available(); err != nil {
		b.Skip(err)
	}
	ws := b.TempDir()
	s, err := Open(context.Background(), Options{Choice: name, Workspace: ws, TempParent: b.TempDir(), Backends: []Backend{be},
		Environ: []string{"PATH=/usr/bin:/bin"}, Limits: Limits{MaxProcs: 512, MaxMemoryBytes: 4 << 30}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	if s.Info().Backend != name {
		b.Fatal(s.Summary())
	}
	return s
}
