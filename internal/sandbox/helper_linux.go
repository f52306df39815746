package sandbox

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// Exit codes of the helper when it cannot run the target; like a shell's,
// so a confinement failure never passes for the command's own status.
const (
	exitCannotConfine = 126
	exitCannotExec    = 127
)

// ExecMain is the hidden HelperCommand of Landlock's re-exec mode: it
// confines its own thread exactly as the thread mode does and execs the
// target from it (execve keeps the calling thread's credentials, so the
// target gets the capability bounding set, no_new_privs, the seccomp
// filter and the Landlock domain). Usage:
//
//	__sandbox-exec --abi N [--rw DIR]... [--deny PATH]... [--tty PATH] [--net] [--unix] -- PATH ARGV0 [ARG]...
//
// Every step is strict: if any rule cannot be applied the target is not
// started and the helper exits 126 with the reason on stderr.
func ExecMain(args []string, stderr io.Writer) int {
	runtime.LockOSThread() // the confinement and execve on the same thread
	abi, p, target, err := parseHelperArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "steerable-sidecar %s: %v\n", HelperCommand, err)
		return exitCannotConfine
	}
	l := Landlock{ABI: abi, sets: &rulesetCache{}}
	if err := l.confineThread(p.normalized()); err != nil {
		fmt.Fprintf(stderr, "steerable-sidecar sandbox: cannot confine the command: %v\n", err)
		return exitCannotConfine
	}
	err = unix.Exec(target[0], target[1:], os.Environ())
	fmt.Fprintf(stderr, "steerable-sidecar sandbox: exec %s: %v\n", target[0], err)
	return exitCannotExec
}

func parseHelperArgs(args []string) (int, Policy, []string, error) {
	fs := flag.NewFlagSet(HelperCommand, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	abi := fs.Int("abi", 0, "")
	var p Policy
	fs.Func("rw", "", func(s string) error { p.WritableRoots = append(p.WritableRoots, s); return nil })
	fs.Func("deny", "", func(s string) error { p.DenyRead = append(p.DenyRead, s); return nil })
	fs.StringVar(&p.Terminal, "tty", "", "")
	fs.BoolVar(&p.Network, "net", false, "")
	fs.BoolVar(&p.UnixSockets, "unix", false, "")
	if err := fs.Parse(args); err != nil {
		return 0, p, nil, err
	}
	target := fs.Args()
	if len(target) < 2 {
		return 0, p, nil, errors.New("usage: --abi N [--rw DIR]... [--deny PATH]... [--tty PATH] [--net] [--unix] -- PATH ARGV0 [ARG ...]")
	}
	return *abi, p, target, nil
}

// dropCapabilities makes sure the target holds no capability after execve
// even when the sidecar runs as root (Landlock takes none away): the
// calling thread's bounding set is emptied (root gains only what it
// allows), and its inheritable and ambient sets are cleared. Without
// CAP_SETPCAP the bounding set cannot be changed, and a process without it
// is not root, so it gains nothing on exec once the ambient set is empty.
// Every one of these sets is per thread.
func dropCapabilities() error {
	for c := 0; c <= unix.CAP_LAST_CAP; c++ {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		if errors.Is(err, unix.EPERM) && os.Geteuid() != 0 {
			break
		}
		if err != nil && !errors.Is(err, unix.EINVAL) { // EINVAL: this kernel has fewer capabilities
			return fmt.Errorf("dropping capability %d from the bounding set: %w", c, err)
		}
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	data[0].Inheritable, data[1].Inheritable = 0, 0
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("clearing the inheritable capabilities: %w", err)
	}
	return unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
}
