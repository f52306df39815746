//go:build linux

package sandbox

import (
	"os"
	"strings"
	"testing"
	"time"

	"steerable.dev/sidecar/internal/sandbox/launch"
	"steerable.dev/sidecar/internal/sandbox/sandboxtest"
)

// escapeesScript starts three processes that outlive their shell by the
// usual means — a background job, setsid, a double fork — then runs tail.
func escapeesScript(marker, tail string) string {
	return `(exec -a ` + marker + `-bg sleep 600) & setsid bash -c 'exec -a ` + marker + `-sid sleep 600' & ` +
		`( (exec -a ` + marker + `-df sleep 600) & ) ; ` + tail
}

// lifetimeCases are the ways a call ends: it returns, it is stopped
// (timeout and cancel), or the sandbox closes (shutdown).
var lifetimeCases = []struct {
	name string
	tail string
	end  func(s *Sandbox, p *Process)
}{
	{"return", "sleep 0.5", func(_ *Sandbox, p *Process) { p.Wait() }},
	{"timeout or cancel", "exec sleep 600", func(_ *Sandbox, p *Process) { p.Stop(time.Second) }},
	{"shutdown", "exec sleep 600", func(s *Sandbox, _ *Process) { s.Close() }},
}

// Nothing a call started survives it, however it detached, under every
// backend (the launcher's PID namespace; SIGKILL is in
// TestSidecarSIGKILLLeavesNoChildren).
func TestEscapeesDieWithTheCall(t *testing.T) {
	for _, name := range append(confining, "none") {
		for _, c := range lifetimeCases {
			t.Run(name+"/"+c.name, func(t *testing.T) {
				s := openSandbox(t, name, false)
				if lt := s.Lifetime(); lt != LifetimePIDNamespace {
					t.Fatalf("lifetime %q here, want a pid namespace: %s", lt, s.Summary())
				}
				checkEscapees(t, s, c.tail, c.end)
			})
		}
	}
}

// Where no PID namespace can be created (simulated: the launch modes are
// restricted), the cgroup, and without one the subreaper, still kill the
// escapees when the call ends, and checks.sandbox says which guarantee is
// in force.
func TestEscapeesDieWithoutANamespace(t *testing.T) {
	modes := []launch.Mode{{Stop: true, Subreaper: true}}
	for _, tt := range []struct {
		noCgroups bool
		want      Lifetime
	}{{false, LifetimeCgroup}, {true, LifetimeSubreaper}} {
		for _, c := range lifetimeCases {
			t.Run(string(tt.want)+"/"+c.name, func(t *testing.T) {
				s := openWith(t, "landlock", Options{launch: launch.Setup{Modes: modes, NoCgroups: tt.noCgroups}})
				if s.Lifetime() != tt.want {
					if tt.want == LifetimeCgroup {
						t.Skipf("no writable cgroup here: %s", s.Summary())
					}
					t.Fatalf("lifetime %q, want %q: %s", s.Lifetime(), tt.want, s.Summary())
				}
				if !strings.Contains(s.Summary(), "lifetime: "+string(tt.want)) {
					t.Errorf("the summary does not name the guarantee: %s", s.Summary())
				}
				checkEscapees(t, s, c.tail, c.end)
			})
		}
	}
}

func checkEscapees(t *testing.T, s *Sandbox, tail string, end func(*Sandbox, *Process)) {
	t.Helper()
	marker := uniqueMarker(t)
	p, err := s.Start(Command{Argv: []string{"bash", "-c", escapeesScript(marker, tail)}, Dir: s.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	waitCount(t, marker, 3)
	end(s, p)
	waitGone(t, marker)
	p.Kill()
	p.Wait()
}

// The kernel's init protection would make a namespace leader ignore
// SIGTERM; Stop does not wait out the grace period for a leader that has
// no handler, and gives one that has a handler its chance to clean up.
func TestStopHonoursTheLeadersSIGTERMHandler(t *testing.T) {
	s := openSandbox(t, "none", false)
	start := time.Now()
	p, err := s.Start(Command{Argv: []string{"sleep", "60"}, Dir: s.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	p.Stop(5 * time.Second)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("stopping a leader without a handler took %v", d)
	}
	dir := sandboxtest.RealTempDir(t)
	out, trapped := dir+"/cleaned", dir+"/trapped"
	p, err = s.Start(Command{Argv: []string{"bash", "-c", `trap 'echo cleaned > ` + out + `; exit 3' TERM; : > ` + trapped + `; while :; do sleep 0.05; done`}, Dir: s.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	// Stop once the handler is installed (a loaded machine may take long).
	sandboxtest.WaitUntil(t, "bash has not installed its SIGTERM handler", func() bool {
		_, err := os.Stat(trapped)
		return err == nil
	})
	p.Stop(5 * time.Second)
	if exit, _ := p.Wait(); exit.Code != 3 {
		t.Errorf("the handler did not run: %+v", exit)
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("the handler did not clean up: %v", err)
	}
}
