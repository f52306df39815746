package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/sandbox"
	"steerable.dev/sidecar/internal/schema"
	"steerable.dev/sidecar/internal/shellsession"
	"steerable.dev/sidecar/protocol"
)

func sessionServer(t *testing.T) (*Server, *shellsession.Manager) {
	t.Helper()
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	sb, err := sandbox.Open(context.Background(), sandbox.Options{Choice: "none", Workspace: ws, TempParent: t.TempDir(),
		Environ: []string{"PATH=" + os.Getenv("PATH")}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	m, err := shellsession.New(shellsession.Options{Sandbox: sb, Dir: ws, BufferBytes: 1 << 16, MaxSessions: 4,
		Idle: time.Hour, Log: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return &Server{svc: Services{Sessions: m}}, m
}

// checkSchema validates v against a protocol schema, as a host would see it.
func checkSchema(t *testing.T, file string, v any) {
	t.Helper()
	var set schema.Set
	sch, err := set.Get(file)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	var doc any
	json.Unmarshal(b, &doc)
	if err := sch.Validate(doc); err != nil {
		t.Errorf("%s: %v\n%s", file, err, b)
	}
}

func TestSessionListAndClose(t *testing.T) {
	s, m := sessionServer(t)
	ctx := context.Background()
	open, err := m.Open(ctx, "sleep 100 &", shellsession.Request{Yield: 5 * time.Second, MaxOutput: 1000})
	if err != nil {
		t.Fatal(err)
	}
	got, err := sessionList(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	list := got.(protocol.SessionListResult)
	if len(list.Sessions) != 1 || list.Sessions[0].ID != open.ID || list.Sessions[0].Command != "sleep 100 &" || list.Sessions[0].Exited {
		t.Fatalf("list %+v", list)
	}
	checkSchema(t, "session.list.result.json", list)

	got, err = sessionClose(ctx, s, protocol.SessionCloseParams{ID: open.ID})
	if err != nil {
		t.Fatal(err)
	}
	closed := got.(protocol.SessionCloseResult).Session
	if !closed.Exited || closed.ExitCode == nil || *closed.ExitCode != 137 {
		t.Errorf("closed %+v", closed)
	}
	checkSchema(t, "session.close.result.json", got)

	_, err = sessionClose(ctx, s, protocol.SessionCloseParams{ID: open.ID})
	var we *protocol.Error
	if !errors.As(err, &we) || we.Code != protocol.CodeInvalidParams || !strings.Contains(we.Message, "was closed by the host") {
		t.Errorf("closing twice: %v", err)
	}
	got, _ = sessionList(ctx, s)
	if n := len(got.(protocol.SessionListResult).Sessions); n != 0 {
		t.Errorf("%d sessions after close", n)
	}
	checkSchema(t, "session.list.result.json", got)
}

func TestSessionMethodsWithoutSessions(t *testing.T) {
	s := &Server{}
	for _, err := range []error{
		func() error { _, err := sessionList(context.Background(), s); return err }(),
		func() error {
			_, err := sessionClose(context.Background(), s, protocol.SessionCloseParams{ID: "sh-00000000"})
			return err
		}(),
	} {
		var we *protocol.Error
		if !errors.As(err, &we) || we.Code != protocol.CodePolicyDenied {
			t.Errorf("without sessions: %v", err)
		}
	}
}
