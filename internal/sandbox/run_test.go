package sandbox

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestRunExitCodesAndStreams(t *testing.T) {
	s := openSandbox(t, "none", false)
	tests := []struct {
		script           string
		code             int
		stdout, stderr   string
		signal           string
		truncated, timed bool
	}{
		{script: `echo out; echo err >&2`, stdout: "out\n", stderr: "err\n"},
		{script: `exit 3`, code: 3},
		// The leader is its PID namespace's init: a signal it sends itself
		// with the default action is ignored (as for PID 1 in a container
		// without an init), while a fault still ends it with its signal.
		{script: `kill -TERM $$; echo alive`, stdout: "alive\n"},
		{script: `exec python3 -c 'import ctypes; ctypes.string_at(0)'`, code: 139, signal: "SIGSEGV"},
		{script: `cat`}, // stdin is /dev/null: returns at once
		{script: `exec 1>&-; sleep 0.1; echo late >&2`, stderr: "late\n"}, // closes stdout early
		{script: `printf 'caf\xc3\xa9'`, stdout: "café"},
	}
	for _, tt := range tests {
		start := time.Now()
		res := run(t, s, tt.script, RunOptions{})
		if res.ExitCode != tt.code || res.Stdout != tt.stdout || res.Stderr != tt.stderr || res.Signal != tt.signal || res.Truncated || res.TimedOut {
			t.Errorf("%q: got %+v", tt.script, res)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%q took %v", tt.script, d)
		}
	}
}

// A timeout kills the whole group: the shell, a background grandchild and
// the foreground command are all gone when Run returns.
func TestRunTimeoutKillsTheGroup(t *testing.T) {
	for _, name := range append(confining, "none") {
		t.Run(name, func(t *testing.T) {
			s := openSandbox(t, name, false)
			marker := uniqueMarker(t)
			start := time.Now()
			res := run(t, s, `echo before; (exec -a `+marker+`-bg sleep 60) & exec -a `+marker+` sleep 60`,
				RunOptions{Timeout: 300 * time.Millisecond})
			if !res.TimedOut || res.Stdout != "before\n" {
				t.Errorf("got %+v, want timedOut with the output so far", res)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("Run returned after %v", d)
			}
			waitGone(t, marker)
		})
	}
}

// A command that ignores SIGTERM is SIGKILLed after the grace period.
func TestRunSIGKILLsWhatIgnoresSIGTERM(t *testing.T) {
	s := openSandbox(t, "none", false)
	start := time.Now()
	res := run(t, s, `trap '' TERM; echo armed; while :; do sleep 0.05; done`, RunOptions{Timeout: 200 * time.Millisecond, Grace: 200 * time.Millisecond})
	if !res.TimedOut || res.Signal != "SIGKILL" {
		t.Errorf("got %+v, want a SIGKILLed timeout", res)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestRunCancellation(t *testing.T) {
	s := openSandbox(t, "none", false)
	marker := uniqueMarker(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	res, err := s.Run(ctx, Command{Argv: []string{"bash", "-c", `exec -a ` + marker + ` sleep 60`}, Dir: s.TempDir()}, RunOptions{MaxOutput: 1024})
	if err != nil || !res.Cancelled {
		t.Fatalf("got %+v, %v; want cancelled", res, err)
	}
	waitGone(t, marker)
}

// Background jobs that outlive the shell die with the call; a process that
// left the group but holds stdout open cannot hold the call past drainWait.
func TestRunLeavesNothingBehind(t *testing.T) {
	s := openSandbox(t, "none", false)
	marker := uniqueMarker(t)
	start := time.Now()
	res := run(t, s, `(exec -a `+marker+` sleep 60) & setsid bash -c 'exec -a `+marker+`-sid sleep 2' & echo done`, RunOptions{})
	if res.ExitCode != 0 || res.Stdout != "done\n" {
		t.Errorf("got %+v", res)
	}
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Errorf("a detached process holding stdout kept Run for %v", d)
	}
	waitGone(t, marker+"\x00") // the job in the group: killed with it
	waitGone(t, marker)        // the one that left it: gone once its sleep ends
}

// 50 MB of output: the capture keeps head and tail within MaxOutput.
func TestRunTruncatesHugeOutput(t *testing.T) {
	s := openSandbox(t, "none", false)
	const max = 1 << 20
	res := run(t, s, `echo FIRST; head -c 52428800 /dev/zero | tr '\0' x; echo; echo LAST`, RunOptions{MaxOutput: max})
	if !res.Truncated || res.ExitCode != 0 {
		t.Fatalf("truncated=%v exit=%d", res.Truncated, res.ExitCode)
	}
	if !strings.HasPrefix(res.Stdout, "FIRST\n") || !strings.HasSuffix(res.Stdout, "\nLAST\n") {
		t.Errorf("head or tail lost: %.20q … %.20q", res.Stdout, res.Stdout[len(res.Stdout)-20:])
	}
	if !strings.Contains(res.Stdout, "bytes truncated]...") || len(res.Stdout) > max+64 {
		t.Errorf("len %d, marker present %v", len(res.Stdout), strings.Contains(res.Stdout, "truncated"))
	}
}

func TestRunOnOutputSeesEverything(t *testing.T) {
	s := openSandbox(t, "none", false)
	var got strings.Builder
	res := run(t, s, `for i in 1 2 3; do echo $i; sleep 0.01; done`, RunOptions{OnOutput: func(stream string, b []byte) {
		if stream == "stdout" {
			got.Write(b)
		}
	}})
	if got.String() != "1\n2\n3\n" || res.Stdout != got.String() {
		t.Errorf("OnOutput saw %q, stdout %q", got.String(), res.Stdout)
	}
}
