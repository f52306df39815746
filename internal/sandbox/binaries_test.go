package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steerable.dev/sidecar/internal/exectest"
	"steerable.dev/sidecar/internal/sandbox/sandboxtest"
)

// The attack: the host starts the sidecar from a path in the workspace (a
// copy, or a symlink to an installed binary); a command replaces it, and
// the next session runs the model's program unconfined. The selection
// reports every such path, however the binary was reached.
func TestExposedBinariesAreReported(t *testing.T) {
	ws, outside := sandboxtest.RealTempDir(t), sandboxtest.RealTempDir(t)
	installed := filepath.Join(outside, "steerable-sidecar")
	exectest.WriteFile(installed, []byte("#!/bin/sh\n"), 0o755)
	copied := filepath.Join(ws, "bin", "steerable-sidecar")
	os.MkdirAll(filepath.Dir(copied), 0o755)
	exectest.WriteFile(copied, []byte("#!/bin/sh\n"), 0o755)
	linked := filepath.Join(ws, "tools", "sidecar")
	os.MkdirAll(filepath.Dir(linked), 0o755)
	os.Symlink(installed, linked)
	viaLink := filepath.Join(outside, "ws-link")
	os.Symlink(ws, viaLink)
	for _, tc := range []struct {
		name string
		bins []string
		want []string // exposed paths
	}{
		{"installed outside", []string{installed, installed}, nil},
		{"a copy in the workspace", []string{copied, copied}, []string{copied}},
		{"a symlink in the workspace to a binary outside", []string{installed, linked}, []string{linked}},
		{"the workspace reached through a symlink", []string{filepath.Join(viaLink, "bin", "steerable-sidecar")}, []string{copied}},
		{"relative paths are not guessed at", []string{"bin/steerable-sidecar"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openWith(t, "none", Options{Workspace: ws, Binaries: tc.bins})
			var got []string
			for _, note := range s.ExposedBinaries() {
				path, _, _ := strings.Cut(strings.TrimPrefix(note, "the sidecar's binary "), " lies in a writable root")
				got = append(got, path)
				if !strings.Contains(s.Summary(), note) {
					t.Errorf("the summary lacks %q: %s", note, s.Summary())
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("exposed (-want +got):\n%s", diff)
			}
		})
	}
}
