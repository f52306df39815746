package sandbox

import (
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// readNetNS is the network namespace of a child under policy p (nil: the
// session's) and the interfaces it sees.
func readNetNS(t *testing.T, s *Sandbox, p *Policy) (ns, ifaces string) {
	t.Helper()
	res, err := s.Run(t.Context(), Command{Argv: []string{"bash", "-c", `readlink /proc/self/ns/net; tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\n' ' '`},
		Dir: s.TempDir(), Policy: p}, RunOptions{MaxOutput: 4096})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("%v %+v", err, res)
	}
	ns, ifaces, _ = strings.Cut(res.Stdout, "\n")
	return ns, strings.TrimSpace(ifaces)
}

// A root sidecar's network-off bwrap children share one empty network
// namespace of the session (only a loopback, down) instead of each
// getting a fresh one; a child that may create sockets — UNIX sockets
// allowed, or the network on — gets its own, or the host's.
func TestNetworkOffChildrenShareAnEmptyNamespace(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only a root sidecar makes a network namespace of its own; others get bwrap's per child")
	}
	if !seccompSupported {
		t.Skip("no socket filter for this architecture: every child gets a namespace of its own")
	}
	s := openSandbox(t, "bwrap", false)
	host, _ := os.Readlink("/proc/self/ns/net")
	first, ifaces := readNetNS(t, s, nil)
	second, _ := readNetNS(t, s, nil)
	if first == host || first != second || ifaces != "lo" {
		t.Errorf("network-off children in %s and %s seeing %q (host %s), want one shared empty namespace", first, second, ifaces, host)
	}
	p := s.Policy()
	p.UnixSockets = true
	if own, _ := readNetNS(t, s, &p); own == first || own == host {
		t.Errorf("a child allowed UNIX sockets runs in %s (shared %s, host %s), want a namespace of its own", own, first, host)
	}
	on := s.Policy().WithNetwork(true)
	if got, _ := readNetNS(t, s, &on); got != host {
		t.Errorf("a network-on child runs in %s, want the host's %s", got, host)
	}
}

// The threads that joined the empty namespace start children only: the
// sidecar's other threads — every one a goroutine may run on — stay in
// the host's network (web_fetch, the host's own sockets).
func TestSidecarThreadsStayInTheHostNetwork(t *testing.T) {
	s := openSandbox(t, "bwrap", false)
	host, _ := os.Readlink("/proc/self/ns/net")
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() { defer wg.Done(); run(t, s, `true`, RunOptions{}) }()
	}
	wg.Wait()
	var mu sync.Mutex
	seen := map[string]int{}
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			ns, _ := os.Readlink("/proc/thread-self/ns/net")
			mu.Lock()
			seen[ns]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	for ns, n := range seen {
		if ns != host {
			t.Errorf("%d goroutines ran on a thread in network namespace %s, not the host's %s", n, ns, host)
		}
	}
}
