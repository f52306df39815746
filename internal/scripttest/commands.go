package scripttest

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// Commands adds the script commands both harnesses share (see the package
// doc) to cmds, a harness's own, and returns it. Each runs on the session
// get finds for its script.
func Commands(cmds map[string]func(*testscript.TestScript, bool, []string), get func(*testscript.TestScript) *Session) map[string]func(*testscript.TestScript, bool, []string) {
	on := func(cmd func(*Session, *testscript.TestScript, []string)) func(*testscript.TestScript, bool, []string) {
		return func(ts *testscript.TestScript, _ bool, args []string) { cmd(get(ts), ts, args) }
	}
	cmds["send"] = on((*Session).send)
	cmds["rpc"] = on((*Session).rpc)
	cmds["await"] = on((*Session).awaitCmd)
	cmds["notification"] = on((*Session).notification)
	cmds["reverse"] = on((*Session).reverse)
	return cmds
}

func (s *Session) send(ts *testscript.TestScript, args []string) {
	s.Write(ts, strings.Join(args, " "))
}

func (s *Session) rpc(ts *testscript.TestScript, args []string) {
	if len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: rpc ID METHOD ['PARAMS']")
	}
	line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q}`, idJSON(args[0]), args[1])
	if len(args) == 3 {
		line = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, idJSON(args[0]), args[1], args[2])
	}
	s.Write(ts, line)
	s.AwaitReply(ts, args[0])
}

func (s *Session) awaitCmd(ts *testscript.TestScript, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: await ID")
	}
	s.AwaitReply(ts, args[0])
}

func (s *Session) notification(ts *testscript.TestScript, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: notification METHOD")
	}
	printJSON(ts, s.Next(ts, Notification(args[0]))["params"])
}

// reverse answers a sidecar → host request with a result.
func (s *Session) reverse(ts *testscript.TestScript, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: reverse METHOD 'RESULT'")
	}
	id := s.TakeReverse(ts, args[0])
	s.Write(ts, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, args[1]))
}

// AwaitReply prints the reply to the request with the script id id.
func (s *Session) AwaitReply(ts *testscript.TestScript, id string) {
	printJSON(ts, s.Next(ts, ReplyTo(idJSON(id))))
}

// TakeReverse waits for a sidecar → host request of method, prints its
// params and returns its id, for the caller to answer (or not).
func (s *Session) TakeReverse(ts *testscript.TestScript, method string) json.RawMessage {
	f := s.Next(ts, func(f Frame) bool { return f["id"] != nil && methodOf(f) == method })
	printJSON(ts, f["params"])
	return f["id"]
}

// ReplyTo matches the reply (a frame without a method) whose id is id, in
// its JSON form.
func ReplyTo(id string) func(Frame) bool {
	return func(f Frame) bool { return f["method"] == nil && strings.TrimSpace(string(f["id"])) == id }
}

// Notification matches a notification (a frame without an id) of method.
func Notification(method string) func(Frame) bool {
	return func(f Frame) bool { return f["id"] == nil && methodOf(f) == method }
}

func methodOf(f Frame) string {
	var m string
	json.Unmarshal(f["method"], &m)
	return m
}

// idJSON turns a script id into its JSON form: numbers stay numbers,
// anything else is a string.
func idJSON(id string) string {
	if _, err := strconv.ParseUint(id, 10, 63); err == nil || id == "null" {
		return id
	}
	return strconv.Quote(id)
}

// printJSON prints v with object keys sorted at every level, so scripts
// can match whole fragments whatever order the sidecar wrote them in.
func printJSON(ts *testscript.TestScript, v any) {
	b, err := canonical(v)
	ts.Check(err)
	fmt.Fprintf(ts.Stdout(), "%s\n", b)
}

// canonical is v as JSON with object keys sorted and numbers as written.
func canonical(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var canon any
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	if err := dec.Decode(&canon); err != nil {
		return nil, err
	}
	return json.Marshal(canon)
}
