package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// probeTimeout bounds the boot probe of one backend.
const probeTimeout = 10 * time.Second

// probeScript is the probe's confined run. $1 is a writable root, $2 a
// directory outside every root, $3 a loopback port that accepts
// connections (empty when the policy has the network on or bash is
// missing, as /dev/tcp is a bash feature).
const probeScript = `echo ok > "$1/.sandbox-probe" || exit 10
(echo escaped > "$2/escape") 2>/dev/null
[ -z "$3" ] || ! (exec 3<>"/dev/tcp/127.0.0.1/$3") 2>/dev/null || exit 12
exit 0`

// Probe proves that b enforces p here with a real run: the child must be
// able to write in the writable root inside, must not be able to write in a
// fresh directory outside every root, and, with the network off, must fail
// to connect to a listener on 127.0.0.1. The outside directory is created
// in the first of scratch that is not below a writable root (when the
// workspace is / or /tmp there may be none; that check is then skipped).
func Probe(ctx context.Context, b Backend, p Policy, inside string, scratch ...string) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	outside := outsideDir(p, scratch)
	if outside != "" {
		defer os.RemoveAll(outside)
	}
	shell, port := "/bin/sh", ""
	if bash, err := exec.LookPath("bash"); err == nil && !p.Network {
		ln, err := net.Listen("tcp4", "127.0.0.1:0")
		if err == nil {
			defer ln.Close()
			shell, port = bash, strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
		}
	}
	w, err := b.Wrap(Cmd{Path: shell, Args: []string{shell, "-c", probeScript, "probe", inside, outside, port}, Dir: inside,
		Env: []string{"PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"}}, p)
	if err != nil {
		return err
	}
	res, err := Run(ctx, &exec.Cmd{Path: w.Path, Args: w.Args, Dir: w.Dir, Env: w.Env}, RunOptions{MaxOutput: 4096})
	defer os.Remove(filepath.Join(inside, ".sandbox-probe"))
	if err != nil {
		return fmt.Errorf("probe could not start: %w", err)
	}
	return probeVerdict(res, outside)
}

// outsideDir creates a temp dir in the first candidate outside every root.
func outsideDir(p Policy, candidates []string) string {
	for _, c := range candidates {
		if c == "" || within(p.WritableRoots, c) {
			continue
		}
		if d, err := os.MkdirTemp(c, "steerable-probe-"); err == nil {
			return d
		}
	}
	return ""
}

// within reports whether path is one of roots or below one.
func within(roots []string, path string) bool {
	path, _ = filepath.Abs(path)
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	for _, r := range roots {
		if rel, err := filepath.Rel(r, path); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return true
		}
	}
	return false
}

func probeVerdict(res Result, outside string) error {
	detail := strings.TrimSpace(res.Stderr)
	switch {
	case res.Cancelled:
		return errors.New("probe did not finish in time")
	case res.ExitCode == 10:
		return fmt.Errorf("probe could not write in the workspace: %s", detail)
	case res.ExitCode == 12:
		return errors.New("probe reached a loopback listener with the network off")
	case res.ExitCode != 0:
		return fmt.Errorf("probe failed (exit %d): %s", res.ExitCode, detail)
	}
	if _, err := os.Stat(filepath.Join(outside, "escape")); outside != "" && err == nil {
		return errors.New("probe wrote outside the writable roots")
	}
	return nil
}
