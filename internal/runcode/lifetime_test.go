package runcode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"steerable.dev/sidecar/internal/sandbox"
	"steerable.dev/sidecar/internal/sandbox/sandboxtest"
	"steerable.dev/sidecar/protocol"
)

// spawnBackground is a program line that leaves a process behind, marked
// so the test can look for it.
func spawnBackground(marker string) string {
	return osEscape + fmt.Sprintf("os.system(\"bash -c 'exec -a %s sleep 60' &\")\n", marker)
}

// gone waits until no process carries marker.
func gone(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(sandboxtest.Marked(marker)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("processes with %q still run: %v", marker, sandboxtest.Marked(marker))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func running(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(sandboxtest.Started(marker)) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no process %q started", marker)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The timeout covers the whole run and kills the whole tree: the
// interpreter and what it started.
func TestTimeoutKillsTheTree(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			rt := session(t, backend).runtime(envOpts{limits: Limits{Timeout: 1500 * time.Millisecond}})
			marker := "rc-timeout-bg-" + backend
			id := "rc-timeout-" + backend
			start := time.Now()
			out, err := rt.Run(context.Background(), Program{CallID: id, Code: spawnBackground(marker) + "print('looping', flush=True)\nwhile True:\n    pass"},
				(&recorder{}).dispatch)
			if err != nil {
				t.Fatal(err)
			}
			if !out.TimedOut || out.Done != nil || out.Stdout != "looping\n" {
				t.Errorf("outcome %+v", out)
			}
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("took %v", took)
			}
			gone(t, marker)
			gone(t, id)
		})
	}
}

// A nested call is part of the run: the timeout ends it too.
func TestTimeoutCoversNestedCalls(t *testing.T) {
	rt := withLimits(t, Limits{Timeout: time.Second})
	var sawDeadline atomic.Bool
	out := runWith(t, rt, `return tools.slow()`, func(ctx context.Context, _ int, _ string, _ json.RawMessage) protocol.ToolResult {
		<-ctx.Done()
		sawDeadline.Store(errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(ctx.Err(), context.Canceled))
		return protocol.ToolResult{Success: false, Error: "cancelled"}
	})
	if !out.TimedOut || !sawDeadline.Load() {
		t.Errorf("timed out %v, the nested call saw its end %v", out.TimedOut, sawDeadline.Load())
	}
}

func TestCancelKillsTheTree(t *testing.T) {
	e := anyEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	marker := "rc-cancel-bg"
	started := make(chan struct{}, 1)
	done := make(chan Outcome)
	go func() {
		out, _ := e.rt.Run(ctx, Program{CallID: "rc-cancel", Code: spawnBackground(marker) + "print('started', flush=True)\nwhile True:\n    pass",
			OnOutput: func(string, []byte) {
				select {
				case started <- struct{}{}:
				default:
				}
			}}, (&recorder{}).dispatch)
		done <- out
	}()
	select {
	case <-started:
	case out := <-done:
		t.Fatalf("the program ended before printing: %+v %+v", out, out.Done)
	}
	running(t, marker)
	if len(sandboxtest.Marked("rc-cancel\x00")) == 0 { // argv: ... - run_code rc-cancel
		t.Error("the interpreter's command line does not name its call")
	}
	cancel()
	select {
	case out := <-done:
		if !out.Cancelled || out.Done != nil {
			t.Errorf("outcome %+v", out)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cancel did not end the run")
	}
	gone(t, marker)
	gone(t, "rc-cancel\x00")
}

// Closing the sandbox (shutdown, EOF, SIGTERM of the sidecar) ends a
// running program.
func TestSandboxCloseEndsAProgram(t *testing.T) {
	e := newEnv(t, available(t), envOpts{})
	marker := "rc-close-bg"
	done := make(chan Outcome)
	go func() {
		out, _ := e.rt.Run(context.Background(), Program{CallID: "rc-close", Code: spawnBackground(marker) + "while True:\n    pass"}, (&recorder{}).dispatch)
		done <- out
	}()
	running(t, marker)
	e.sb.Close()
	select {
	case out := <-done:
		if out.Done != nil {
			t.Errorf("outcome %+v", out)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("closing the sandbox did not end the run")
	}
	gone(t, marker)
}

// Printing 50 MB costs the kept head and tail, not 50 MB.
func TestOutputIsBounded(t *testing.T) {
	rt := withLimits(t, Limits{MaxOutputBytes: 64 << 10})
	out := runWith(t, rt, `line = "x" * 1023
for i in range(51200):
    print(line)
return "printed"`, nil)
	if v := value(t, out); v != "printed" {
		t.Errorf("value %v", v)
	}
	if !out.Truncated || len(out.Stdout) > 64<<10+100 || !strings.Contains(out.Stdout, "bytes truncated") {
		t.Errorf("stdout of %d bytes, truncated %v", len(out.Stdout), out.Truncated)
	}
}

// A child that breaks the bridge from inside — closing fd 3, writing
// garbage on it — gets a clear outcome, and the session keeps serving.
func TestChildThatBreaksTheBridge(t *testing.T) {
	e := anyEnv(t)
	closed := e.run(t, osEscape+"os.close(3)\nreturn 1", nil)
	if closed.Done != nil || closed.ExitCode != 2 || !strings.Contains(closed.Stderr, "the bridge (fd 3) is closed") {
		t.Errorf("closed fd 3: %+v", closed)
	}
	garbage := e.run(t, osEscape+"os.write(3, b'not a frame\\n')\nimport time\ntime.sleep(30)", nil)
	if !errors.Is(garbage.Stopped, ErrBridge) || !strings.Contains(garbage.Stopped.Error(), "frame 1") {
		t.Errorf("garbage on fd 3: %+v", garbage)
	}
	exited := e.run(t, osEscape+"os._exit(7)", nil)
	if exited.Done != nil || exited.ExitCode != 7 {
		t.Errorf("exited: %+v", exited)
	}
	if v := value(t, e.run(t, "return 'still serving'", nil)); v != "still serving" {
		t.Errorf("after: %v", v)
	}
}

// The sandbox's per-call limits hold for the interpreter: a memory hog is
// killed, a fork bomb refused, and nothing is left.
func TestSandboxLimitsContainThePrograms(t *testing.T) {
	e := newEnv(t, available(t), envOpts{sbLimits: &sandbox.Limits{MaxProcs: 64, MaxMemoryBytes: 256 << 20}})
	hog := e.run(t, `b = b"x" * (1 << 30)
return len(b)`, nil)
	if hog.Done != nil && hog.Done.OK {
		t.Errorf("a 1 GiB allocation under a 256 MiB limit returned: %+v", hog)
	}
	if hog.Limit != "memory" && (hog.Done == nil || !strings.HasPrefix(hog.Done.Error, "MemoryError")) {
		t.Errorf("memory hog: limit %q, done %+v, exit %d", hog.Limit, hog.Done, hog.ExitCode)
	}
	bomb := e.run(t, osEscape+`import time
n = 0
while True:
    if os.fork() == 0:
        time.sleep(60)
        os._exit(0)
    n += 1`, nil)
	if bomb.Done == nil || !strings.HasPrefix(bomb.Done.Error, "BlockingIOError") {
		t.Errorf("fork bomb: %+v", bomb)
	}
	if v := value(t, e.run(t, "return 1", nil)); v != 1.0 {
		t.Errorf("after the limits: %v", v)
	}
}
