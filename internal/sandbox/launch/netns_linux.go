package launch

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// A network namespace costs bubblewrap about 0.45 ms of CPU to create for
// every child and the kernel as much again to tear down afterwards, on a
// worker thread that competes with whatever runs next. With the network
// off and no socket allowed at all — the socket filter refuses socket(2)
// and io_uring, so nothing in the namespace can create an endpoint, a
// route or an interface — one namespace serves as well as a fresh one: a
// root sidecar makes one empty network namespace per session, and its
// network-off bwrap children start in it (from the launcher's second
// spawner pool, whose threads have joined it) instead of asking bwrap for
// their own. Where a child may create sockets — the network on, or
// STEERABLE_SANDBOX_UNIX_SOCKETS=1, whose abstract sockets are per
// network namespace and would be shared by concurrent children — or where
// no socket filter exists, bwrap unshares a namespace per child, as does
// every non-root sidecar (it has no right to make one of its own).

// openEmptyNet makes the session's empty network namespace and returns a
// descriptor of it: a thread of its own unshares one, opens it, and is
// retired. Only root can (CAP_SYS_ADMIN).
func openEmptyNet() (*os.File, error) {
	if os.Geteuid() != 0 {
		return nil, fmt.Errorf("only root makes a network namespace of its own")
	}
	type result struct {
		f   *os.File
		err error
	}
	ch := make(chan result, 1)
	onOwnThread(func() {
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			ch <- result{err: fmt.Errorf("unshare(CLONE_NEWNET): %w", err)}
			return
		}
		f, err := os.Open("/proc/thread-self/ns/net")
		ch <- result{f, err}
	}) // the thread, now in the new namespace, is retired
	r := <-ch
	return r.f, r.err
}

// enterNet returns a spawner's enter function that joins the namespace
// of f on the calling (locked, never unlocked) thread.
func enterNet(f *os.File) func() error {
	return func() error {
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			return fmt.Errorf("joining the sandbox's network namespace: %w", err)
		}
		return nil
	}
}

// sharedNet is the session's empty network namespace and the spawner
// pool whose threads have joined it; a zero one: none.
type sharedNet struct {
	ns      *os.File
	threads spawner
}

// SharedNet reports whether the session has an empty network namespace a
// child can start in (openSharedNet).
func (l *Launcher) SharedNet() bool { return l.net.ns != nil }

// openSharedNet gives the launcher its empty network namespace and the
// pool of threads inside it; nil when it cannot have one (not root), and
// the children then get bwrap's own.
func (l *Launcher) openSharedNet() error {
	f, err := openEmptyNet()
	if err != nil {
		return err
	}
	l.net = sharedNet{ns: f, threads: spawner{enter: enterNet(f)}}
	return nil
}

func (l *Launcher) closeSharedNet() {
	l.net.threads.close()
	if l.net.ns != nil {
		l.net.ns.Close()
	}
}
