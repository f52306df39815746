package shellsession

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"steerable.dev/sidecar/internal/sandbox/sandboxtest"
)

func open(t *testing.T, m *Manager, command string) Result {
	t.Helper()
	res, err := m.Open(context.Background(), command, req("", 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func write(t *testing.T, m *Manager, id, chars string, yield time.Duration) Result {
	t.Helper()
	res, err := m.Write(context.Background(), id, req(chars, yield))
	if err != nil {
		t.Fatalf("write %q: %v", chars, err)
	}
	return res
}

func wantOutput(t *testing.T, res Result, want string, state State) {
	t.Helper()
	if res.Output != want || res.State != state {
		t.Errorf("output %q in state %s, want %q in %s", res.Output, res.State, want, state)
	}
}

func TestCdAndExportPersist(t *testing.T) {
	forEachBackend(t, func(t *testing.T, backend string) {
		m, ws := openManager(t, backend, Options{})
		os.Mkdir(filepath.Join(ws, "sub"), 0o755)
		s := open(t, m, "cd sub && export GREETING=hello")
		wantOutput(t, s, "", StatePrompt)
		wantOutput(t, write(t, m, s.ID, "pwd; echo $GREETING\n", 5*time.Second), ws+"/sub\nhello\n", StatePrompt)
		wantOutput(t, write(t, m, s.ID, "cd .. && pwd\n", 5*time.Second), ws+"\n", StatePrompt)
	})
}

// The shell waits for a command to its end, however quiet it is, and
// several lines in one call are all run before the call returns.
func TestAReadWaitsForTheCommandAndEveryLine(t *testing.T) {
	forEachBackend(t, func(t *testing.T, backend string) {
		m, _ := openManager(t, backend, Options{})
		s := open(t, m, "")
		res := write(t, m, s.ID, "echo a; sleep 0.3; echo b\necho c\n", 5*time.Second)
		wantOutput(t, res, "a\nb\nc\n", StatePrompt)
		wantOutput(t, write(t, m, s.ID, "for i in 1 2\n", 5*time.Second), "", StateContinuation)
		wantOutput(t, write(t, m, s.ID, "do echo $i; done\n", 5*time.Second), "1\n2\n", StatePrompt)
	})
}

// Ctrl-C through the terminal's line discipline ends the foreground
// command and the shell goes on; Ctrl-D at the prompt ends the shell. With
// `exec`, the command replaced the shell: Ctrl-C ends it, and the session
// (sh, not the shell, is the namespace's init, so the signal is not
// ignored).
func TestCtrlCAndCtrlD(t *testing.T) {
	forEachBackend(t, func(t *testing.T, backend string) {
		m, _ := openManager(t, backend, Options{})
		s := open(t, m, "")
		start := time.Now()
		wantOutput(t, write(t, m, s.ID, "sleep 100\n", 300*time.Millisecond), "", StateRunning)
		if d := time.Since(start); d < 300*time.Millisecond {
			t.Errorf("returned after %v, before yieldMs", d)
		}
		res := write(t, m, s.ID, "\x03", 5*time.Second)
		if res.State != StatePrompt || res.Exited {
			t.Fatalf("after Ctrl-C: %+v", res)
		}
		wantOutput(t, write(t, m, s.ID, "echo $?\n", 5*time.Second), "130\n", StatePrompt)
		res = write(t, m, s.ID, "\x04", 5*time.Second)
		if !res.Exited || res.ExitCode != 0 || res.State != StateExited {
			t.Errorf("after Ctrl-D: %+v", res)
		}

		s, err := m.Open(context.Background(), "exec sleep 100", req("", 300*time.Millisecond))
		if err != nil || s.State != StateRunning {
			t.Fatalf("exec sleep: %+v", s)
		}
		res = write(t, m, s.ID, "\x03", 5*time.Second)
		if !res.Exited || res.ExitCode != 130 {
			t.Errorf("Ctrl-C to an exec'd command: %+v", res)
		}
	})
}

func TestExitCodeAndReap(t *testing.T) {
	forEachBackend(t, func(t *testing.T, backend string) {
		m, _ := openManager(t, backend, Options{})
		s := open(t, m, "")
		res := write(t, m, s.ID, "echo bye; exit 3\n", 5*time.Second)
		if !res.Exited || res.ExitCode != 3 || res.Output != "bye\nexit\n" {
			t.Errorf("exit 3: %+v", res)
		}
		var unknown *UnknownError
		if _, err := m.Write(context.Background(), s.ID, req("", 0)); !errors.As(err, &unknown) ||
			!strings.Contains(err.Error(), "exited with code 3 and its final output was read") {
			t.Errorf("a reaped session: %v", err)
		}
		if len(m.List()) != 0 {
			t.Errorf("reaped session still listed: %+v", m.List())
		}
		// A shell that exits during a long wait ends the wait; kill -9 $$
		// ends the shell (it is not the namespace's init).
		for cmd, code := range map[string]int{"sleep 0.2; exit 4\n": 4, "kill -9 $$\n": 137} {
			s = open(t, m, "")
			start := time.Now()
			res = write(t, m, s.ID, cmd, 10*time.Second)
			if !res.Exited || res.ExitCode != code || time.Since(start) > 5*time.Second {
				t.Errorf("%q: %+v after %v", cmd, res, time.Since(start))
			}
		}
	})
}

// Characters for a shell that exited (its output not read yet) are refused
// with its exit code; the refusal carries the final output.
func TestWritingToAnExitedSession(t *testing.T) {
	forEachBackend(t, func(t *testing.T, backend string) {
		m, ws := openManager(t, backend, Options{})
		s := open(t, m, "")
		exitLater(t, m, ws, s.ID, "echo last words; exit 5")
		_, err := m.Write(context.Background(), s.ID, req("echo more\n", time.Second))
		var exited *ExitedError
		if !errors.As(err, &exited) || exited.Exit.Code != 5 || !strings.Contains(exited.Final.Output, "last words") {
			t.Fatalf("write to an exited shell: %v %+v", err, exited)
		}
		if !strings.Contains(err.Error(), "exited with code 5") {
			t.Errorf("error %q", err)
		}
	})
}

// exitLater has session id run exit (commands that end the shell) once the
// write has returned, and waits until it has: a read that saw the exit
// would take the final output, and the session would be gone at once.
func exitLater(t *testing.T, m *Manager, ws, id, exit string) {
	t.Helper()
	gate := filepath.Join(ws, "exit-now")
	os.Remove(gate)
	write(t, m, id, "until [ -e exit-now ]; do sleep 0.01; done; "+exit+"\n", 0)
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	waitExited(t, m, id)
}

func waitExited(t *testing.T, m *Manager, id string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		in, err := m.Info(id)
		if err != nil {
			t.Fatal(err)
		}
		if in.Exited {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the shell did not exit")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestREPLOverSeveralCalls(t *testing.T) {
	forEachBackend(t, func(t *testing.T, backend string) {
		m, _ := openManager(t, backend, Options{})
		s := open(t, m, "python3 -i -q")
		if s.State != StateInput || !strings.HasSuffix(s.Output, ">>> ") {
			t.Fatalf("REPL start: %+v", s)
		}
		wantOutput(t, write(t, m, s.ID, "x = 6\n", 5*time.Second), ">>> ", StateInput)
		wantOutput(t, write(t, m, s.ID, "print(x * 7)\n", 5*time.Second), "42\n>>> ", StateInput)
		wantOutput(t, write(t, m, s.ID, "def f():\n", 5*time.Second), "... ", StateInput)
		wantOutput(t, write(t, m, s.ID, "  return 'ok'\n\nf()\n", 5*time.Second), "... >>> 'ok'\n>>> ", StateInput)
		wantOutput(t, write(t, m, s.ID, "exit()\n", 5*time.Second), "", StatePrompt)
	})
}

// A program that reads the terminal in raw mode gets every byte as typed
// (Ctrl-C included: no signal in raw mode); the read returns once it asked,
// and once it answered.
func TestRawModeProgram(t *testing.T) {
	forEachBackend(t, func(t *testing.T, backend string) {
		m, _ := openManager(t, backend, Options{})
		s := open(t, m, `python3 -c 'import sys, tty; print("key?", end=" ", flush=True); tty.setraw(0); `+
			`print(repr(sys.stdin.read(3)), end="\r\n")'`)
		wantOutput(t, s, "key? ", StateInput)
		res := write(t, m, s.ID, "a\x03\r", 5*time.Second)
		if res.Output != "'a\\x03\\r'\n" {
			t.Errorf("answer %q", res.Output)
		}
		if res.State != StatePrompt { // python may still be exiting: the shell's prompt follows
			wantOutput(t, write(t, m, s.ID, "", 5*time.Second), "", StatePrompt)
		}
	})
}

// The ninth session is refused with the fix; closing one, or a shell that
// exited, makes room.
func TestSessionLimit(t *testing.T) {
	m, ws := openManager(t, "none", Options{MaxSessions: 3})
	var ids []string
	for range 3 {
		ids = append(ids, open(t, m, "").ID)
	}
	_, err := m.Open(context.Background(), "", req("", time.Second))
	var limit *LimitError
	if !errors.As(err, &limit) || err.Error() != "session limit reached (3); close one with write_stdin close:true" {
		t.Fatalf("the fourth session: %v", err)
	}
	if _, err := m.End(ids[0], "was closed", 1000); err != nil {
		t.Fatal(err)
	}
	ids[0] = open(t, m, "").ID
	exitLater(t, m, ws, ids[1], "exit 7")
	open(t, m, "") // evicts the exited one
	_, err = m.Write(context.Background(), ids[1], req("", 0))
	if err == nil || !strings.Contains(err.Error(), "discarded to make room") {
		t.Errorf("the evicted session: %v", err)
	}
}

// Concurrent opens never exceed the limit.
func TestSessionLimitUnderConcurrentOpens(t *testing.T) {
	m, _ := openManager(t, "none", Options{MaxSessions: 4})
	var wg sync.WaitGroup
	var mu sync.Mutex
	opened, refused := 0, 0
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := m.Open(context.Background(), "", req("", 5*time.Second))
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				opened++
			} else if errors.As(err, new(*LimitError)) {
				refused++
			} else {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if opened != 4 || refused != 6 || len(m.List()) != 4 {
		t.Errorf("opened %d, refused %d, listed %d", opened, refused, len(m.List()))
	}
}

func TestIdleExpiry(t *testing.T) {
	m, _ := openManager(t, "none", Options{Idle: 300 * time.Millisecond})
	marker := uniqueMarker()
	idle := open(t, m, "(exec -a "+marker+" sleep 300) &")
	busy := open(t, m, "")
	// A call that waits longer than the idle time keeps its session alive.
	write(t, m, busy.ID, "sleep 0.8\n", 2*time.Second)
	_, err := m.Write(context.Background(), idle.ID, req("", 0))
	if err == nil || !strings.Contains(err.Error(), "without a call (STEERABLE_SESSION_IDLE_MS)") {
		t.Fatalf("an idle session: %v", err)
	}
	waitGone(t, marker)
	write(t, m, busy.ID, "true\n", time.Second)
}

// Ending a session, or all of them at shutdown, kills what it started,
// however it detached.
func TestEndKillsTheWholeTree(t *testing.T) {
	forEachBackend(t, func(t *testing.T, backend string) {
		m, _ := openManager(t, backend, Options{})
		one, all := uniqueMarker(), uniqueMarker()+"-all"
		s := open(t, m, "setsid bash -c 'exec -a "+one+" sleep 300' & disown")
		waitRunning(t, one)
		res, err := m.End(s.ID, "was closed (write_stdin close:true)", 1000)
		if err != nil || !res.Exited {
			t.Fatalf("End: %+v %v", res, err)
		}
		waitGone(t, one)
		for range 2 {
			open(t, m, "setsid bash -c 'exec -a "+all+" sleep 300' &")
		}
		waitRunning(t, all)
		m.Close()
		waitGone(t, all)
		if _, err := m.Open(context.Background(), "", req("", 0)); !errors.Is(err, ErrClosed) {
			t.Errorf("open after Close: %v", err)
		}
	})
}

func uniqueMarker() string {
	return fmt.Sprintf("st-sess-%d-%d", os.Getpid(), time.Now().UnixNano())
}

func waitRunning(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for len(sandboxtest.Started(marker)) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%s never started", marker)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func waitGone(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for len(sandboxtest.Marked(marker)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("processes %v outlived their session", sandboxtest.Marked(marker))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The session's commands run under the sandbox's policy: nothing outside
// the workspace and the temp dir is writable, credentials are not in the
// environment.
func TestTheSandboxPolicyHolds(t *testing.T) {
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			m, _ := openManager(t, backend, Options{})
			dir, err := os.MkdirTemp("/var/tmp", "steerable-session-") // not under /tmp: bwrap's /tmp is private
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(dir)
			outside := filepath.Join(dir, "outside.txt")
			s := open(t, m, "")
			res := write(t, m, s.ID, "echo in > inside.txt && echo wrote-inside; echo out > "+outside+" || echo refused; "+
				"echo key=${OPENAI_API_KEY:-none}\n", 5*time.Second)
			if !strings.Contains(res.Output, "wrote-inside\n") || !strings.Contains(res.Output, "refused\n") ||
				!strings.Contains(res.Output, "key=none\n") {
				t.Errorf("output %q", res.Output)
			}
			if _, err := os.Stat(outside); err == nil {
				t.Error("the session wrote outside the workspace")
			}
		})
	}
}

// 50 MB of output: the session keeps its ring, the read says how much was
// dropped, and memory stays bounded.
func TestHugeOutputIsBounded(t *testing.T) {
	forEachBackend(t, func(t *testing.T, backend string) {
		m, _ := openManager(t, backend, Options{BufferBytes: 64 << 10})
		s := open(t, m, "")
		res, err := m.Write(context.Background(), s.ID, Request{Chars: "head -c 50000000 /dev/zero | tr '\\0' x; echo; echo done\n",
			Yield: 60 * time.Second, MaxOutput: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if res.State != StatePrompt || !strings.HasSuffix(res.Output, "done\n") {
			t.Fatalf("state %s, end %q", res.State, tail(res.Output))
		}
		if res.DroppedBytes < 50000000-(64<<10) || !strings.Contains(res.Output, "bytes of earlier output dropped") {
			t.Errorf("dropped %d", res.DroppedBytes)
		}
		if res.SkippedChars != 64<<10-1000 || !res.Truncated() {
			t.Errorf("skipped %d", res.SkippedChars)
		}
		if len(res.Output) > 2000 {
			t.Errorf("a read of %d bytes for a budget of 1000 characters", len(res.Output))
		}
	})
}

func tail(s string) string { return s[max(0, len(s)-80):] }

// Live output carries the raw bytes, escape sequences included.
func TestLiveOutputIsRaw(t *testing.T) {
	m, _ := openManager(t, "none", Options{})
	s := open(t, m, "")
	var mu sync.Mutex
	var live strings.Builder
	res, err := m.Write(context.Background(), s.ID, Request{Chars: `printf '\e[31mred\e[0m\n'` + "\n", Yield: 5 * time.Second,
		MaxOutput: 1000, Live: func(id string, b []byte) { mu.Lock(); live.WriteString(id + ":"); live.Write(b); mu.Unlock() }})
	if err != nil || res.Output != "red\n" {
		t.Fatalf("%+v %v", res, err)
	}
	if !strings.Contains(live.String(), s.ID+":\x1b[31mred\x1b[0m\r\n") {
		t.Errorf("live %q", live.String())
	}
}

// Characters for a program that does not read its input are written up to
// what the terminal buffers; the rest is reported, and the call returns.
// (In line mode the terminal itself discards what does not fit a line.)
func TestInputNobodyReads(t *testing.T) {
	m, _ := openManager(t, "none", Options{})
	s := open(t, m, "")
	ready := write(t, m, s.ID, `python3 -c 'import time, tty; tty.setraw(0); print("ready", flush=True); time.sleep(100)'`+"\n", 5*time.Second)
	if ready.Output != "ready\n" || ready.State != StateInput {
		t.Fatalf("%+v", ready)
	}
	start := time.Now()
	res := write(t, m, s.ID, strings.Repeat("y", 1<<20), 200*time.Millisecond)
	if res.Unwritten == 0 || res.Unwritten >= 1<<20 {
		t.Errorf("unwritten %d", res.Unwritten)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the call took %v", d)
	}
	if res, err := m.End(s.ID, "was closed", 1000); err != nil || !res.Exited {
		t.Errorf("close: %+v %v", res, err)
	}
}

// Many calls at once on one session are served one after the other; each
// returns, and the output is split between them without loss.
func TestConcurrentAndRapidCalls(t *testing.T) {
	m, _ := openManager(t, "none", Options{})
	s := open(t, m, "for i in $(seq 1 200); do echo line$i; sleep 0.002; done &")
	var wg sync.WaitGroup
	var mu sync.Mutex
	var all strings.Builder
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := m.Write(context.Background(), s.ID, req("", 20*time.Millisecond))
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			all.WriteString(res.Output)
			mu.Unlock()
		}()
	}
	wg.Wait()
	for range 1000 {
		res := write(t, m, s.ID, "", 0)
		all.WriteString(res.Output)
	}
	res := write(t, m, s.ID, "wait; echo end\n", 60*time.Second) // returns at the prompt; 60 s bounds a failure
	all.WriteString(s.Output + res.Output)
	got := all.String()
	for i := 1; i <= 200; i++ {
		if strings.Count(got, fmt.Sprintf("line%d\n", i)) != 1 {
			t.Fatalf("line%d seen %d times", i, strings.Count(got, fmt.Sprintf("line%d\n", i)))
		}
	}
}

func TestUnknownSessions(t *testing.T) {
	m, _ := openManager(t, "none", Options{})
	s := open(t, m, "")
	for _, id := range []string{"sh-00000000", "42", "", strings.Repeat("x", 10000)} {
		_, err := m.Write(context.Background(), id, req("", 0))
		var unknown *UnknownError
		if !errors.As(err, &unknown) || !strings.Contains(err.Error(), "live sessions: ["+s.ID+"]") {
			t.Errorf("%.20q: %v", id, err)
		}
	}
	m.End(s.ID, "was closed by the host (session.close)", 1000)
	_, err := m.Write(context.Background(), s.ID, req("", 0))
	if err == nil || err.Error() != "session "+s.ID+" was closed by the host (session.close); there are no sessions; start one with bash_session" {
		t.Errorf("a closed session: %v", err)
	}
}

// A cancelled call returns at once and loses no output: the next read has
// it.
func TestCancelKeepsTheOutput(t *testing.T) {
	m, _ := openManager(t, "none", Options{})
	s := open(t, m, "")
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(200 * time.Millisecond); cancel() }()
	start := time.Now()
	_, err := m.Write(ctx, s.ID, req("echo before; sleep 100\n", 10*time.Second))
	if !errors.Is(err, context.Canceled) || time.Since(start) > 2*time.Second {
		t.Fatalf("cancel: %v after %v", err, time.Since(start))
	}
	if res := write(t, m, s.ID, "\x03", 5*time.Second); res.Output != "before\n\n" {
		t.Errorf("after the cancel: %q", res.Output)
	}
}
