package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"steerable.dev/sidecar/internal/sandbox/launch"
)

// Bwrap confines the child with bubblewrap: a mount namespace whose root is
// the host's, read-only; the writable roots bound read-write at their own
// paths; the denied paths masked (an empty read-only tmpfs over a
// directory, /dev/null over a file), inside the roots too (masks.go); a
// private tmpfs /tmp of Limits.TmpBytes; a minimal /dev and a
// fresh /proc whose kernel knobs a root sidecar's command could write
// (/proc/sys, the sysrq trigger) are read-only; its own PID, IPC, UTS and
// — with the network off — (empty) network namespace, plus the socket
// filter (--seccomp). Every capability is dropped, and a root sidecar's
// command runs as an unprivileged uid in a user namespace of its own
// (bubblewrap keeps root's uid and, for /proc/sys, its rights otherwise).
//
// Its PID namespace, --die-with-parent and the launcher's own namespace
// around it end the whole tree with the bwrap process.
type Bwrap struct {
	// Path is the bwrap binary; empty when none was found.
	Path string
	// Root: the sidecar runs as uid 0.
	Root    bool
	missing string
	masks   *maskCache // nil: the masks are computed for every child
	tmpSize *tmpSize   // whether this bwrap can cap its tmpfs (tmpsize.go)
}

// trustedBwrapDirs are where bwrap is taken from unless STEERABLE_BWRAP_PATH
// names it: system directories a sandboxed command cannot write, never
// PATH (which may hold the workspace).
var trustedBwrapDirs = []string{"/usr/bin", "/bin", "/usr/local/bin"}

// unprivilegedID is the uid and gid a root sidecar's command has inside
// bwrap's user namespace (the kernel still charges its files to the
// sidecar's uid outside).
const unprivilegedID = 1000

// NewBwrap finds bwrap: override (STEERABLE_BWRAP_PATH) when set, else the
// first of trustedBwrapDirs that has it; either must be a trusted program
// (trusted.go).
func NewBwrap(override string) Bwrap { return newBwrapIn(override, nil) }

// newBwrapIn is NewBwrap for a session whose writable roots are roots:
// bwrap runs with the sidecar's rights, so one in a root is refused.
func newBwrapIn(override string, roots []string) Bwrap {
	b := Bwrap{Root: os.Geteuid() == 0, masks: &maskCache{}, tmpSize: &tmpSize{}}
	if override != "" {
		path, err := CheckTrusted(override, roots)
		if err != nil {
			b.missing = fmt.Sprintf("STEERABLE_BWRAP_PATH=%s: %v", override, err)
			return b
		}
		b.Path = path
		return b
	}
	var why []string
	for _, dir := range trustedBwrapDirs {
		p := filepath.Join(dir, "bwrap")
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		path, err := CheckTrusted(p, roots)
		if err == nil {
			b.Path = path
			return b
		}
		why = append(why, err.Error())
	}
	b.missing = "bwrap is not installed in /usr/bin, /bin or /usr/local/bin (apt-get install bubblewrap, or set STEERABLE_BWRAP_PATH)"
	if len(why) > 0 {
		b.missing = "no trusted bwrap: " + strings.Join(why, "; ")
	}
	return b
}

// Name implements Backend.
func (Bwrap) Name() string { return "bwrap" }

// Available implements Backend.
func (b Bwrap) Available() error {
	if b.Path == "" {
		if b.missing == "" {
			return errors.New("bwrap was not found")
		}
		return errors.New(b.missing)
	}
	return nil
}

// Prepare implements Backend. The seccomp filter reaches bwrap on the
// descriptor after the caller's.
func (b Bwrap) Prepare(cmd launch.Exec, p Policy) (launch.Spec, error) {
	if err := b.Available(); err != nil {
		return launch.Spec{}, err
	}
	p = p.normalized()
	var files []*os.File
	seccompFD := -1
	if prog := commandFilterBytes(p); prog != nil {
		f, err := dataPipe(prog)
		if err != nil {
			return launch.Spec{}, fmt.Errorf("passing the seccomp filter to bwrap: %w", err)
		}
		files, seccompFD = append(files, f), 3+cmd.ExtraFiles
	}
	sharedNet := cmd.SharedNet && sharesNet(p)
	args := b.args(cmd, p, seccompFD, sharedNet)
	return launch.Spec{Exec: launch.Exec{Path: b.Path, Args: args, Dir: cmd.Dir, Env: cmd.Env, ExtraFiles: cmd.ExtraFiles}, Files: files,
		EmptyNet: sharedNet}, nil
}

// sharesNet says whether a child under p may run in the session's empty
// network namespace rather than one of its own (launch/netns_linux.go): only
// when it can create no socket at all.
func sharesNet(p Policy) bool { return p.socketsDenied() && !p.UnixSockets && seccompSupported }

// rootKnobs are the entries of the fresh /proc that a root sidecar's
// command could still write, bound read-only over themselves: its uid 1000
// maps to uid 0 outside, and these are guarded by the file's owner alone —
// /proc/sys (kernel.core_pattern is code execution as root) and the sysrq
// trigger. Writes to the other root-owned entries need a capability the
// command does not have (/proc/mtrr, ns_last_pid), are open to every user
// anyway (the PSI triggers in /proc/pressure), or are covered by bubblewrap
// itself (/proc/irq, /proc/bus). Any other sidecar's command writes none
// of them, inside as outside: it has the user's uid and no capability.
var rootKnobs = []string{"/proc/sys", "/proc/sysrq-trigger"}

// args is bwrap's command line; sharedNet: the child starts in the
// session's empty network namespace, so bwrap makes none.
func (b Bwrap) args(cmd launch.Exec, p Policy, seccompFD int, sharedNet bool) []string {
	args := []string{"bwrap", "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--cap-drop", "ALL"}
	if b.Root {
		id := strconv.Itoa(unprivilegedID)
		args = append(args, "--unshare-user", "--uid", id, "--gid", id)
	}
	if !p.Network && !sharedNet {
		args = append(args, "--unshare-net")
	}
	args = append(args, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc")
	if b.Root {
		for _, k := range rootKnobs {
			args = append(args, "--ro-bind-try", k, k)
		}
	}
	if p.Limits.TmpBytes > 0 && b.tmpSize.supported(b.Path) {
		args = append(args, "--size", strconv.FormatInt(p.Limits.TmpBytes, 10))
	}
	args = append(args, "--tmpfs", "/tmp")
	for _, r := range p.ReadOnlyRoots {
		args = append(args, "--ro-bind", r, r)
	}
	masks := b.masks.get(p.DenyRead, p.WritableRoots)
	args = append(args, masks.before...)
	for _, r := range p.WritableRoots {
		args = append(args, "--bind", r, r)
	}
	args = append(args, masks.after...)
	args = append(args, masks.remount...)
	if seccompFD >= 0 {
		args = append(args, "--seccomp", strconv.Itoa(seccompFD))
	}
	if cmd.Dir != "" {
		args = append(args, "--chdir", cmd.Dir)
	}
	args = append(args, "--", cmd.Path)
	return append(args, cmd.Args[1:]...)
}

// dataPipe returns the read end of a pipe holding data (a few hundred
// bytes: far below the pipe's buffer).
func dataPipe(data []byte) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer w.Close()
	if _, err := w.Write(data); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// Enforcement implements Backend: the read-only root, the masks, the bind
// mounts, the empty network namespace and the seccomp filter cover the whole
// policy (the filter exists for amd64 and arm64).
func (Bwrap) Enforcement(p Policy) Enforcement {
	if p.socketsDenied() && !seccompSupported {
		return EnforcementPartial
	}
	return EnforcementFull
}

var _ Backend = Bwrap{}
