package main

// The shell-session scripts (testdata/session/session_*.txtar) run once per
// Linux backend: STEERABLE_SANDBOX is set to it, and [backend:NAME] is
// true for it. Besides the commands of session_test.go they have:
//
//	setid VAR                 set $VAR to the sessionId in the last command's stdout
//	sendfile FILE             write FILE's content (one line, its newline trimmed) as a frame
//	rapid-polls N ID SESSION  send N write_stdin polls of SESSION at once (ids ID, ID+1, …),
//	                          await every reply and require each to be a success

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"steerable.dev/sidecar/internal/sandbox"
	"steerable.dev/sidecar/internal/scripttest"
)

func TestSessionScripts(t *testing.T) {
	for _, backend := range []string{"bwrap", "landlock", "none"} {
		t.Run(backend, func(t *testing.T) {
			if reason := backendMissing(backend); reason != "" {
				t.Skip(reason)
			}
			cmds := maps.Clone(sessionCmds)
			maps.Copy(cmds, map[string]func(*testscript.TestScript, bool, []string){
				"setid": cmdSetID, "sendfile": cmdSendFile, "rapid-polls": cmdRapidPolls,
			})
			testscript.Run(t, testscript.Params{
				Dir: "testdata/session",
				Setup: func(env *testscript.Env) error {
					env.Setenv("STEERABLE_SANDBOX", backend)
					return setupSession(env)
				},
				Cmds: cmds,
				Condition: func(cond string) (bool, error) {
					if name, ok := strings.CutPrefix(cond, "backend:"); ok {
						return name == backend, nil
					}
					return scriptCondition(cond)
				},
				RequireUniqueNames:  true,
				RequireExplicitExec: true,
			})
		})
	}
}

// backendMissing says why a backend cannot run here ("" when it can); the
// sidecar's own probe then proves it works.
func backendMissing(backend string) string {
	switch backend {
	case "bwrap":
		if err := sandbox.NewBwrap("").Available(); err != nil {
			return err.Error()
		}
	case "landlock":
		if ok, _ := scriptCondition("landlock"); !ok {
			return "this kernel has no Landlock"
		}
	}
	return ""
}

var sessionIDPattern = regexp.MustCompile(`"sessionId":"(sh-[0-9a-f]{8})"`)

func cmdSetID(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: setid VAR")
	}
	m := sessionIDPattern.FindStringSubmatch(ts.ReadFile("stdout"))
	if m == nil {
		ts.Fatalf("no sessionId in the last stdout")
	}
	ts.Setenv(args[0], m[1])
}

func cmdSendFile(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: sendfile FILE")
	}
	b, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	sess(ts).Write(ts, strings.TrimSuffix(string(b), "\n"))
}

func cmdRapidPolls(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: rapid-polls N ID SESSION")
	}
	n, err1 := strconv.Atoi(args[0])
	first, err2 := strconv.Atoi(args[1])
	if err1 != nil || err2 != nil {
		ts.Fatalf("N and ID are numbers")
	}
	s := sess(ts)
	var batch strings.Builder
	for i := range n {
		fmt.Fprintf(&batch, `{"jsonrpc":"2.0","id":%d,"method":"tool.invoke","params":{"name":"write_stdin","arguments":{"sessionId":%q,"yieldMs":0}}}`+"\n",
			first+i, args[2])
	}
	s.Write(ts, strings.TrimSuffix(batch.String(), "\n"))
	for i := range n {
		id := strconv.Itoa(first + i)
		f := s.Next(ts, scripttest.ReplyTo(id))
		var res struct {
			Success bool   `json:"success"`
			Error   string `json:"error"`
		}
		if err := json.Unmarshal(f["result"], &res); err != nil || !res.Success {
			ts.Fatalf("poll %s: %s %s", id, f["result"], f["error"])
		}
	}
	fmt.Fprintf(ts.Stdout(), "%d polls answered\n", n)
}

func cmdRSSBelow(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: rss-below MB")
	}
	limit, err := strconv.Atoi(args[0])
	ts.Check(err)
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", sess(ts).Cmd.Process.Pid))
	ts.Check(err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if kb, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB")))
			fmt.Fprintf(ts.Stdout(), "peak RSS %d MiB\n", n>>10)
			if n>>10 >= limit {
				ts.Fatalf("peak RSS %d MiB, want below %d", n>>10, limit)
			}
			return
		}
	}
	ts.Fatalf("no VmHWM in /proc/PID/status")
}
