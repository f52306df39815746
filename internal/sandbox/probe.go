package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"steerable.dev/sidecar/internal/sandbox/launch"
)

// probeTimeout bounds the boot probe of one backend.
const probeTimeout = 10 * time.Second

// probeScript is the probe's confined run. $1 is a writable root, $2 a
// directory outside every root, $3 a loopback port that accepts
// connections (empty when the policy has the network on or bash is
// missing, as /dev/tcp is a bash feature), $4 a file on the probe's deny
// list. It then reports, from inside, what was really applied.
const probeScript = `echo ok > "$1/.sandbox-probe" || exit 10
(echo escaped > "$2/escape") 2>/dev/null
[ -z "$3" ] || ! (exec 3<>"/dev/tcp/127.0.0.1/$3") 2>/dev/null || exit 12
[ -z "$4" ] || ! cat "$4" >/dev/null 2>&1 || exit 13
v=$(cat /proc/sys/vm/overcommit_ratio 2>/dev/null) && (echo "$v" > /proc/sys/vm/overcommit_ratio) 2>/dev/null && exit 14
grep -E '^(NoNewPrivs|Seccomp):' /proc/self/status 2>/dev/null
echo "Uid: $(id -u)"
exit 0`

// Probe proves that b enforces p here with a real run of shell (a trusted
// program: Sandbox.probeShell) through l: the child
// must be able to write in the writable root inside, must not be able to
// write in a fresh directory outside every root, read a file on the deny
// list, change a kernel setting (/proc/sys), or, with the network off,
// connect to a listener on 127.0.0.1; and what it reports from inside
// (no_new_privs, the seccomp mode, its uid) must match what the backend
// applies. The outside directory is created in the first of scratch that
// is not below a writable root (when the workspace is / or /tmp there may
// be none; those checks are then skipped).
func Probe(ctx context.Context, l *launch.Launcher, b Backend, p Policy, shell, inside string, scratch ...string) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	outside, secret := outsideDir(p, scratch)
	if outside != "" {
		defer os.RemoveAll(outside)
		p.DenyRead = append(p.DenyRead, secret)
	}
	port := ""
	if strings.HasPrefix(filepath.Base(shell), "bash") && !p.Network { // /dev/tcp is bash's
		ln, err := net.Listen("tcp4", "127.0.0.1:0")
		if err == nil {
			defer ln.Close()
			port = strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
		}
	}
	spec, err := b.Prepare(launch.Exec{Path: shell, Args: []string{shell, "-c", probeScript, "probe", inside, outside, port, secret}, Dir: inside,
		Env: []string{"PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"}, SharedNet: l.SharedNet()}, p)
	if err != nil {
		return err
	}
	res, err := l.Run(ctx, spec, launch.IO{}, p.Limits.perCall(), RunOptions{MaxOutput: 4096})
	defer os.Remove(filepath.Join(inside, ".sandbox-probe"))
	if err != nil {
		return fmt.Errorf("probe could not start: %w", err)
	}
	if err := probeVerdict(res, outside); err != nil {
		return err
	}
	return expectApplied(b, p.normalized(), res.Stdout)
}

// outsideDir creates a temp dir in the first candidate outside every root,
// with a secret file in it for the deny-read check.
func outsideDir(p Policy, candidates []string) (dir, secret string) {
	for _, c := range candidates {
		if c == "" {
			continue
		}
		if real, err := filepath.EvalSymlinks(c); err == nil {
			c = real
		}
		if within(p.WritableRoots, c) {
			continue
		}
		d, err := os.MkdirTemp(c, "steerable-probe-")
		if err != nil {
			continue
		}
		secret = filepath.Join(d, "secret")
		if os.WriteFile(secret, []byte("probe secret\n"), 0o600) != nil {
			secret = ""
		}
		return d, secret
	}
	return "", ""
}

func probeVerdict(res Result, outside string) error {
	detail := strings.TrimSpace(res.Stderr)
	switch {
	case res.Cancelled || res.TimedOut:
		return errors.New("probe did not finish in time")
	case res.ExitCode == 10:
		return fmt.Errorf("probe could not write in the workspace: %s", detail)
	case res.ExitCode == 12:
		return errors.New("probe reached a loopback listener with the network off")
	case res.ExitCode == 13:
		return errors.New("probe read a file on the deny list")
	case res.ExitCode == 14:
		return errors.New("probe changed a kernel setting (/proc/sys is writable)")
	case res.ExitCode != 0:
		return fmt.Errorf("probe failed (exit %d): %s", res.ExitCode, detail)
	}
	if _, err := os.Stat(filepath.Join(outside, "escape")); outside != "" && err == nil {
		return errors.New("probe wrote outside the writable roots")
	}
	return nil
}

// expectApplied checks the probe's report from inside against what b
// applies: no_new_privs under Landlock, the seccomp filter under Landlock
// and bwrap, never uid 0 under bwrap.
func expectApplied(b Backend, p Policy, report string) error {
	got := map[string]string{}
	for _, line := range strings.Split(report, "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			got[k] = strings.TrimSpace(v)
		}
	}
	name := b.Name()
	switch {
	case name == "landlock" && got["NoNewPrivs"] != "1":
		return fmt.Errorf("the command runs without no_new_privs (NoNewPrivs %q)", got["NoNewPrivs"])
	case (name == "landlock" || name == "bwrap") && seccompSupported && got["Seccomp"] != "2":
		return fmt.Errorf("the command runs without the seccomp filter (Seccomp %q)", got["Seccomp"])
	case name == "bwrap" && got["Uid"] == "0":
		return errors.New("the command runs as uid 0 inside bwrap")
	}
	return nil
}
