package prompt

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
	"golang.org/x/term"

	"steerable.dev/sidecar/protocol"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// screen is the person's side of a pseudo-terminal: what the prompt shows,
// and a keyboard.
type screen struct {
	t    *testing.T
	ptmx *os.File
	tty  *os.File
	done chan struct{}

	mu   sync.Mutex
	out  strings.Builder
	seen int // output consumed by expect
	grew chan struct{}
}

func newScreen(t *testing.T) *screen {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal on this machine: %v", err)
	}
	s := &screen{t: t, ptmx: ptmx, tty: tty, done: make(chan struct{}), grew: make(chan struct{}, 1)}
	go func() {
		defer close(s.done)
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			s.mu.Lock()
			s.out.Write(buf[:n])
			s.mu.Unlock()
			select {
			case s.grew <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		tty.Close()
		ptmx.Close()
		<-s.done
	})
	return s
}

// expect waits until the output after the last match contains want.
func (s *screen) expect(want string) {
	s.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		s.mu.Lock()
		rest := s.out.String()[s.seen:]
		if i := strings.Index(rest, want); i >= 0 {
			s.seen += i + len(want)
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		select {
		case <-s.grew:
		case <-deadline:
			s.t.Fatalf("the terminal never showed %q; it shows:\n%s", want, rest)
		}
	}
}

// reply waits for prompt, then types keys.
func (s *screen) reply(prompt, keys string) {
	s.t.Helper()
	s.expect(prompt)
	s.typeKeys(keys)
}

func (s *screen) typeKeys(keys string) {
	s.t.Helper()
	if _, err := s.ptmx.WriteString(keys); err != nil {
		s.t.Fatal(err)
	}
}

func (s *screen) all() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.String()
}

// state reads the terminal's modes (echo, canonical mode, …).
func (s *screen) state() *term.State {
	s.t.Helper()
	fd, err := descriptor(s.tty)
	if err != nil {
		s.t.Fatal(err)
	}
	st, err := term.GetState(fd)
	if err != nil {
		s.t.Fatal(err)
	}
	return st
}

// ask runs AskUser in the background.
func ask(ctx context.Context, h *Terminal, req protocol.AskUserRequestParams) <-chan askResult {
	ch := make(chan askResult, 1)
	go func() {
		res, err := h.AskUser(ctx, req)
		ch <- askResult{res, err}
	}()
	return ch
}

type askResult struct {
	res protocol.AskUserRequestResult
	err error
}

func wait(t *testing.T, ch <-chan askResult) askResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("AskUser did not return")
		return askResult{}
	}
}

var setup = protocol.AskUserRequestParams{CallID: "c1", Intro: "Setting up the project.", Outro: "Thanks!", Questions: []protocol.AskUserQuestion{
	{ID: "db", Text: "Which database?", Type: "select", Header: "DB", Options: []protocol.AskUserOption{
		{Label: "Postgres", Value: "pg", Description: "the server"}, {Label: "SQLite"}}},
	{ID: "tags", Text: "Tags?", Type: "select", MultiSelect: true, Options: []protocol.AskUserOption{{Label: "a"}, {Label: "b"}, {Label: "c"}}},
	{ID: "name", Text: "Project name?", Type: "text", Placeholder: "my-app"},
	{ID: "token", Text: "API token?", Type: "password"},
}}

func TestTerminalAsksEveryKindOfQuestion(t *testing.T) {
	s := newScreen(t)
	before := s.state()
	ch := ask(context.Background(), New(s.tty), setup)
	s.expect("Setting up the project.")
	s.expect("(1/4) [DB] Which database?")
	s.expect("1) Postgres — the server")
	s.expect("2) SQLite")
	s.reply("Choose 1-2: ", "7\r")
	s.reply(`"7" is not one of the choices; enter a number from 1 to 2.`, "\r")
	s.reply("Enter a number from 1 to 2.", "sqlite\r") // a label, any case
	s.expect("(2/4) Tags?")
	s.reply("separated by commas (empty for none): ", "1, 3\r")
	s.expect("(3/4) Project name? (e.g. my-app)")
	s.reply("> ", "demo\r")
	s.expect("demo") // echoed
	s.expect("(4/4) API token?")
	s.reply("> ", "hunter2\r")
	s.expect("Thanks!")
	r := wait(t, ch)
	if r.err != nil {
		t.Fatal(r.err)
	}
	want := map[string]any{"db": "SQLite", "tags": []string{"a", "c"}, "name": "demo", "token": "hunter2"}
	if diff := cmp.Diff(protocol.AskUserRequestResult{Answers: want}, r.res); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if strings.Contains(s.all(), "hunter2") {
		t.Errorf("the password was echoed:\n%s", s.all())
	}
	if !reflect.DeepEqual(before, s.state()) {
		t.Error("terminal state not restored")
	}
}

func TestTerminalCtrlCAndCtrlDCancel(t *testing.T) {
	for _, key := range []string{"\x03", "\x04"} {
		s := newScreen(t)
		before := s.state()
		ch := ask(context.Background(), New(s.tty), setup)
		s.reply("Choose 1-2: ", "1\r")
		s.reply("Choose any of 1-3", key)
		r := wait(t, ch)
		if r.err != nil || !r.res.Cancelled || len(r.res.Answers) != 0 {
			t.Errorf("key %q: got %+v, %v; want cancelled without answers", key, r.res, r.err)
		}
		s.expect("(cancelled)")
		if !reflect.DeepEqual(before, s.state()) {
			t.Errorf("key %q: terminal state not restored", key)
		}
	}
}

// TestTerminalContextInterruptsAPrompt: a cancelled context (SIGTERM, the
// ask_user timeout) ends a pending prompt at once, even a hidden one, and the
// terminal is usable for the next call.
func TestTerminalContextInterruptsAPrompt(t *testing.T) {
	s := newScreen(t)
	before := s.state()
	h := New(s.tty)
	ctx, cancel := context.WithCancel(context.Background())
	pw := protocol.AskUserRequestParams{Intro: "x", Questions: []protocol.AskUserQuestion{{ID: "pw", Text: "Password?", Type: "password"}}}
	ch := ask(ctx, h, pw)
	s.expect("Password?")
	s.expect("> ")
	cancel()
	r := wait(t, ch)
	if !errors.Is(r.err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", r.err)
	}
	if !reflect.DeepEqual(before, s.state()) {
		t.Error("terminal state not restored after cancel")
	}
	ch = ask(context.Background(), h, pw)
	s.expect("Password?")
	s.reply("> ", "again\r")
	if r := wait(t, ch); r.err != nil || r.res.Answers["pw"] != "again" {
		t.Errorf("next call after a cancel: %+v, %v", r.res, r.err)
	}
}

func TestTerminalRefusesAFileThatIsNotATerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "plain"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = New(f).AskUser(context.Background(), setup)
	if err == nil || !strings.Contains(err.Error(), "is not a terminal") {
		t.Errorf("err = %v", err)
	}
}

func TestParseChoice(t *testing.T) {
	opts := []protocol.AskUserOption{{Label: "Postgres", Value: "pg"}, {Label: "SQLite"}, {Label: "Other thing"}}
	tests := []struct {
		in      string
		multi   bool
		want    []string
		problem string
	}{
		{"1", false, []string{"pg"}, ""},
		{" 2 ", false, []string{"SQLite"}, ""},
		{"postgres", false, []string{"pg"}, ""},
		{"Other thing", false, []string{"Other thing"}, ""},
		{"0", false, nil, `"0" is not one of the choices; enter a number from 1 to 3.`},
		{"", false, nil, "Enter a number from 1 to 3."},
		{"1,2", false, nil, `"1,2" is not one of the choices; enter a number from 1 to 3.`},
		{"1,2", true, []string{"pg", "SQLite"}, ""},
		{"3 1", true, []string{"Other thing", "pg"}, ""},
		{"", true, []string{}, ""},
		{"1, nine", true, nil, `"nine" is not one of the choices; enter a number from 1 to 3.`},
	}
	for _, tt := range tests {
		got, problem := parseChoice(tt.in, opts, tt.multi)
		if diff := cmp.Diff(tt.want, got); diff != "" || problem != tt.problem {
			t.Errorf("parseChoice(%q, multi=%v) = %q, %q; want %q, %q", tt.in, tt.multi, got, problem, tt.want, tt.problem)
		}
	}
}
