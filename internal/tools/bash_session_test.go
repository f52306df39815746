package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"steerable.dev/sidecar/internal/shellsession"
	"steerable.dev/sidecar/protocol"
)

// sessionDeps are bashDeps with a session manager of max sessions.
func sessionDeps(t *testing.T, host Host, max int) Deps {
	t.Helper()
	d := bashDeps(t, host, false, "none")
	m, err := shellsession.New(shellsession.Options{Sandbox: d.Sandbox, Dir: d.Files.Dir(), BufferBytes: 1 << 20,
		MaxSessions: max, Idle: time.Hour, Log: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	d.Sessions = m
	return d
}

func callTool(t *testing.T, tool Tool, args string) protocol.ToolResult {
	t.Helper()
	return tool.Run(context.Background(), Call{ID: "c1", Arguments: json.RawMessage(args)})
}

func TestSessionToolsRegisteredWithTheSessions(t *testing.T) {
	names := func(d Deps) (out []string) {
		for _, tool := range Builtins(d) {
			if n := tool.Descriptor().Name; n == "bash_session" || n == "write_stdin" {
				out = append(out, n+":"+string(tool.Descriptor().Mode))
			}
		}
		return out
	}
	d := sessionDeps(t, NoHost{}, 8)
	if diff := cmp.Diff([]string{"bash_session:local", "write_stdin:local"}, names(d)); diff != "" {
		t.Error(diff)
	}
	d.Sessions = nil
	if got := names(d); got != nil {
		t.Errorf("registered without sessions: %v", got)
	}
}

func TestSessionToolResults(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) }) // registered first: runs after the session cleanups
	host := &notes{}
	d := sessionDeps(t, host, 8)
	open, write := newBashSession(sessionEnvOf(d)), newWriteStdin(sessionEnvOf(d))
	r := callTool(t, open, `{"command":"export X=42","yieldMs":5000}`)
	id, _ := r.Data["sessionId"].(string)
	if !r.Success || len(id) != len("sh-12345678") || r.Data["state"] != "prompt" || r.Data["exited"] != false ||
		!strings.Contains(r.Message, "at its prompt") || r.Data["_sandbox"] == nil {
		t.Fatalf("open: %+v", r)
	}
	r = callTool(t, write, `{"sessionId":"`+id+`","chars":"printf '\\e[1mX=%s\\e[0m\\n' $X\n"}`)
	want := map[string]any{"sessionId": id, "output": "X=42\n", "state": "prompt", "exited": false, "truncated": false,
		"skippedChars": 0, "droppedBytes": int64(0)}
	delete(r.Data, "_sandbox")
	if diff := cmp.Diff(want, r.Data); diff != "" {
		t.Errorf("write (-want +got):\n%s", diff)
	}
	r = callTool(t, write, `{"sessionId":"`+id+`","chars":"sleep 100\n","yieldMs":50}`)
	if r.Data["state"] != "running" || !strings.Contains(r.Message, `"\u0003" (Ctrl-C)`) {
		t.Errorf("running: %+v", r)
	}
	r = callTool(t, write, `{"sessionId":"`+id+`","close":true}`)
	if !r.Success || r.Data["exited"] != true || r.Data["exitCode"] != 137 || !strings.Contains(r.Message, "exited with code 137") {
		t.Errorf("close: %+v", r)
	}
	host.mu.Lock()
	defer host.mu.Unlock()
	var live strings.Builder
	for _, n := range host.got {
		if n.SessionID != id || n.Stream != "stdout" {
			t.Errorf("notification %+v", n)
		}
		live.WriteString(n.Chunk)
	}
	if !strings.Contains(live.String(), "\x1b[1mX=42\x1b[0m\r\n") {
		t.Errorf("live output %q", live.String())
	}
}

func TestSessionToolRefusals(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) }) // registered first: runs after the session cleanups
	d := sessionDeps(t, NoHost{}, 1)
	open, write := newBashSession(sessionEnvOf(d)), newWriteStdin(sessionEnvOf(d))
	id := callTool(t, open, `{}`).Data["sessionId"].(string)
	for _, tc := range []struct {
		tool         Tool
		args, errHas string
	}{
		{open, `{}`, "session limit reached (1); close one with write_stdin close:true"},
		{write, `{"sessionId":"sh-00000000"}`, "live sessions: [" + id + "]"},
		{write, `{"sessionId":"` + id + `","chars":"` + strings.Repeat("y", sessionMaxChars+1) + `"}`, "at most 65536 go to the terminal per call"},
		{open, `{"command":"` + strings.Repeat("y", sessionMaxChars+1) + `"}`, "command is 65537 characters"},
	} {
		r := callTool(t, tc.tool, tc.args)
		if r.Success || !r.NeedsFollowup || !strings.Contains(r.Error, tc.errHas) {
			t.Errorf("%.60s: %+v", tc.args, r)
		}
	}
	r := callTool(t, write, `{"sessionId":"`+id+`","chars":"exit 9\n"}`)
	if r.Data["exitCode"] != 9 {
		t.Fatalf("exit: %+v", r)
	}
	r = callTool(t, write, `{"sessionId":"`+id+`","chars":"echo\n"}`)
	if r.NeedsFollowup != true || !strings.Contains(r.Error, "exited with code 9 and its final output was read") {
		t.Errorf("after exit: %+v", r)
	}
	d.Sessions.Close()
	if r := callTool(t, open, `{}`); !protocol.IsTerminal(r) || !strings.Contains(r.Error, "shutting down") {
		t.Errorf("after Close: %+v", r)
	}
}
