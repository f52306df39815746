package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/askuser"
	"steerable.dev/sidecar/protocol"
)

var nopLog = zerolog.Nop()

// askHost answers ask_user.request the way a test tells it to: a raw JSON
// result (decoded as serve mode decodes a host's reply), an error, or never
// (until ctx ends).
type askHost struct {
	NoHost
	mu    sync.Mutex
	got   []protocol.AskUserRequestParams
	reply string // raw JSON result
	err   error
	block bool
}

func (h *askHost) AskUser(ctx context.Context, p protocol.AskUserRequestParams) (protocol.AskUserRequestResult, error) {
	h.mu.Lock()
	h.got = append(h.got, p)
	h.mu.Unlock()
	if h.block {
		<-ctx.Done()
		return protocol.AskUserRequestResult{}, ctx.Err()
	}
	if h.err != nil {
		return protocol.AskUserRequestResult{}, h.err
	}
	return askuser.DecodeReply(json.RawMessage(h.reply))
}

// askDispatcher registers the built-ins over host and returns a dispatcher.
func askDispatcher(t *testing.T, deps Deps) *Dispatcher {
	t.Helper()
	reg := NewRegistry()
	if err := reg.Register(protocol.SourceBuiltin, Builtins(deps)...); err != nil {
		t.Fatal(err)
	}
	return NewDispatcher(reg, nil, nopLog)
}

const setupArgs = `{"intro":"Setting up.","questions":[
	{"name":"db","message":"Which database?","type":"list","choices":["pg",{"name":"SQLite","value":"lite"}]},
	{"name":"tags","message":"Tags?","type":"checkbox","choices":["a","b","c"]},
	{"id":"token","text":"API token?","type":"password"},
	{"id":"name","text":"Project name?","placeholder":"my-app"}]}`

func TestAskUserSendsTheCanonicalPayloadAndReturnsAnswers(t *testing.T) {
	host := &askHost{reply: `{"answers":{"db":"lite","tags":["a","c"],"token":"hunter2","name":"demo"}}`}
	d := askDispatcher(t, Deps{Host: host, Log: nopLog})
	res := d.Dispatch(context.Background(), Invocation{ToolCall: protocol.ToolCall{ID: "c7", Name: "ask_user", Arguments: json.RawMessage(setupArgs)}})
	if !res.Success {
		t.Fatalf("result = %+v", res)
	}
	wantReq := protocol.AskUserRequestParams{CallID: "c7", Intro: "Setting up.", Questions: []protocol.AskUserQuestion{
		{ID: "db", Text: "Which database?", Type: "select", Options: []protocol.AskUserOption{{Label: "pg"}, {Label: "SQLite", Value: "lite"}}},
		{ID: "tags", Text: "Tags?", Type: "select", MultiSelect: true, Options: []protocol.AskUserOption{{Label: "a"}, {Label: "b"}, {Label: "c"}}},
		{ID: "token", Text: "API token?", Type: "password"},
		{ID: "name", Text: "Project name?", Type: "text", Placeholder: "my-app"},
	}}
	if diff := cmp.Diff([]protocol.AskUserRequestParams{wantReq}, host.got); diff != "" {
		t.Errorf("ask_user.request params (-want +got):\n%s", diff)
	}
	wantAnswers := map[string]any{"db": "lite", "tags": []string{"a", "c"}, "token": "hunter2", "name": "demo"}
	if diff := cmp.Diff(wantAnswers, res.Data["answers"]); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
	if res.Data["cancelled"] != false {
		t.Errorf("cancelled = %v", res.Data["cancelled"])
	}
	wantMsg := "The user answered 4 of 4 question(s):\n" +
		"- Which database? (db): \"lite\"\n" +
		"- Tags? (tags): [\"a\", \"c\"]\n" +
		"- API token? (token): ********\n" +
		"- Project name? (name): \"demo\""
	if diff := cmp.Diff(wantMsg, res.Message); diff != "" {
		t.Errorf("message (-want +got):\n%s", diff)
	}
}

// TestAskUserNeverHangsTheTurn: every way of not getting answers records
// empty answers with cancelled:true and a reason.
func TestAskUserNeverHangsTheTurn(t *testing.T) {
	tests := []struct {
		name    string
		host    *askHost
		timeout time.Duration
		cancel  bool // cancel the call's context (as $/cancelRequest does)
		reason  string
	}{
		{"the user cancels", &askHost{reply: `{"cancelled":true,"answers":{"q":"ignored"}}`}, 0, false, "(the user cancelled)"},
		{"no host", &askHost{err: fmt.Errorf("ask_user.request: %w", ErrHostGone)}, 0, false, "(no host is connected to ask the user)"},
		{"host without the method", &askHost{err: protocol.Errorf(protocol.CodeMethodNotFound, "nope")}, 0, false, "(the host does not handle ask_user.request)"},
		{"error reply", &askHost{err: protocol.Errorf(-32000, "dialog crashed")}, 0, false, "(the host answered with an error: dialog crashed)"},
		{"a string reply", &askHost{reply: `"yes"`}, 0, false, "{answers} or {cancelled: true}: \"yes\")"},
		{"a null reply", &askHost{reply: `null`}, 0, false, "{answers} or {cancelled: true}: null)"},
		{"answers of the wrong type", &askHost{reply: `{"answers":["q","yes"]}`}, 0, false, `{answers} or {cancelled: true}: {"answers":["q","yes"]})`},
		{"timeout", &askHost{block: true}, 30 * time.Millisecond, false, "(no answer within 30ms (STEERABLE_ASK_USER_TIMEOUT_MS=30))"},
		{"cancelled call", &askHost{block: true}, 0, true, "(the call was cancelled)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := NewAskUser(tt.host, tt.timeout, nopLog)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancel {
				time.AfterFunc(20*time.Millisecond, cancel)
			}
			done := make(chan protocol.ToolResult, 1)
			go func() {
				done <- tool.Run(ctx, Call{ID: "c1", Arguments: json.RawMessage(`{"intro":"","questions":[{"id":"q","text":"Q?","type":"text"}]}`)})
			}()
			var res protocol.ToolResult
			select {
			case res = <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("ask_user hung")
			}
			if !res.Success || res.Data["cancelled"] != true || len(res.Data["answers"].(map[string]any)) != 0 {
				t.Fatalf("result = %+v, want empty answers and cancelled", res)
			}
			if !strings.Contains(res.Message, tt.reason) || !strings.HasPrefix(res.Message, "The user did not answer (") {
				t.Errorf("message %q lacks %q", res.Message, tt.reason)
			}
		})
	}
}

// TestCheckAnswersFromAnInProcessHandler: a handler that is not behind JSON
// (the terminal prompt) hands over []string, not []any.
// TestAskUserMasksPasswordsInLogs runs at debug level, where the answers are
// logged: the password appears only in data.answers.
func TestAskUserMasksPasswordsInLogs(t *testing.T) {
	var logs bytes.Buffer
	host := &askHost{reply: `{"answers":{"token":"hunter2","name":"demo"}}`}
	tool := NewAskUser(host, 0, zerolog.New(&logs).Level(zerolog.DebugLevel))
	res := tool.Run(context.Background(), Call{ID: "c1", Arguments: json.RawMessage(
		`{"intro":"","questions":[{"id":"token","text":"Token?","type":"password"},{"id":"name","text":"Name?","type":"text"}]}`)})
	if res.Data["answers"].(map[string]any)["token"] != "hunter2" {
		t.Fatalf("the password is missing from data.answers: %+v", res.Data)
	}
	if strings.Contains(res.Message, "hunter2") || strings.Contains(logs.String(), "hunter2") {
		t.Errorf("password leaked:\nmessage: %s\nlogs: %s", res.Message, logs.String())
	}
	if !strings.Contains(logs.String(), `"token":"********"`) || !strings.Contains(logs.String(), `"answered":["token","name"]`) {
		t.Errorf("logs = %s", logs.String())
	}
}

func TestAskUserDescriptorAndListing(t *testing.T) {
	reg := NewRegistry()
	if err := reg.Register(protocol.SourceBuiltin, Builtins(Deps{Host: NoHost{}, Log: nopLog})...); err != nil {
		t.Fatal(err)
	}
	e, ok := reg.Lookup("ask_user")
	if !ok || e.Desc.Mode != protocol.ModeRead || e.Desc.Exposure != protocol.ExposureDirect {
		t.Fatalf("ask_user entry = %+v", e)
	}
	for _, askUser := range []bool{false, true} {
		ds, err := reg.List(protocol.ToolListParams{View: protocol.ViewModel, AskUser: askUser})
		if err != nil {
			t.Fatal(err)
		}
		offered := false
		for _, d := range ds {
			offered = offered || d.Name == "ask_user"
		}
		if offered != askUser {
			t.Errorf("askUser:%v: ask_user offered = %v", askUser, offered)
		}
	}
}

func TestAskUserWithoutAHostInDispatch(t *testing.T) {
	d := askDispatcher(t, Deps{Host: NoHost{}, Log: nopLog})
	res := d.Dispatch(context.Background(), Invocation{ToolCall: protocol.ToolCall{Name: "ask_user", Arguments: json.RawMessage(setupArgs)}})
	if !res.Success || res.Data["cancelled"] != true || !strings.Contains(res.Message, "no host is connected") {
		t.Fatalf("result = %+v", res)
	}
	bad := d.Dispatch(context.Background(), Invocation{ToolCall: protocol.ToolCall{Name: "ask_user", Arguments: json.RawMessage(`{"intro":"","questions":[{"id":"a"}]}`)}})
	if bad.Success || !bad.NeedsFollowup || !strings.Contains(bad.Error, `questions[0].text is missing or empty`) {
		t.Fatalf("refusal = %+v", bad)
	}
}

// FuzzHostAnswer: whatever the host replies, decoding and checking it never
// panics, and what survives answers an asked question in its shape.
