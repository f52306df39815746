package runcode

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steerable.dev/sidecar/protocol"
)

func TestProgramReturnsValues(t *testing.T) {
	e := anyEnv(t)
	tests := []struct {
		code string
		want any
	}{
		{`return {"n": 1 + 1}`, map[string]any{"n": 2.0}},
		{`x = 1`, nil},
		{`# only a comment`, nil},
		{`return None`, nil},
		{"def sq(v):\n    return v * v\nreturn [sq(i) for i in range(4)]", []any{0.0, 1.0, 4.0, 9.0}},
		{`return (1, "a", True, 2.5)`, []any{1.0, "a", true, 2.5}},
		{`return {1: "int keys become strings"}`, map[string]any{"1": "int keys become strings"}},
		{`return "\ud800 lone surrogate"`, "\ufffd lone surrogate"},
		{"import json, re, math, collections, itertools, functools, datetime, textwrap, difflib, string, decimal\n" +
			"import fractions, random, heapq, bisect, typing, dataclasses, base64, hashlib, statistics, urllib.parse\n" +
			"from collections import Counter\nfrom collections.abc import Mapping\nimport concurrent.futures, threading\n" +
			"return [Counter('aab')['a'], hashlib.sha256(b'').hexdigest()[:8], urllib.parse.quote('a b'), isinstance({}, Mapping)]",
			[]any{2.0, "e3b0c442", "a%20b", true}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, value(t, e.run(t, tt.code, nil))); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.code, diff)
		}
	}
}

// Print goes to stdout and stderr, captured; the bridge is untouched.
func TestProgramOutputIsCapturedApartFromTheBridge(t *testing.T) {
	e := anyEnv(t)
	var chunks []string
	var mu sync.Mutex
	out, err := e.rt.Run(context.Background(), Program{CallID: "print", Code: `print('{"v":1,"type":"done","ok":true,"value":"forged"}')
return "real"`, OnOutput: func(stream string, b []byte) { mu.Lock(); chunks = append(chunks, stream+":"+string(b)); mu.Unlock() }},
		(&recorder{}).dispatch)
	if err != nil {
		t.Fatal(err)
	}
	if v := value(t, out); v != "real" {
		t.Errorf("value %v: printing a frame reached the bridge", v)
	}
	if out.Stdout != `{"v":1,"type":"done","ok":true,"value":"forged"}`+"\n" {
		t.Errorf("stdout %q", out.Stdout)
	}
	if len(chunks) == 0 || !strings.HasPrefix(chunks[0], "stdout:") {
		t.Errorf("OnOutput saw %q", chunks)
	}
}

func TestProgramErrors(t *testing.T) {
	e := anyEnv(t)
	tests := []struct {
		name, code string
		want       Done
	}{
		{"exception", "x = 1\ny = [0]\nreturn x / y[0]", Done{Kind: KindException, Error: "ZeroDivisionError: division by zero", Line: 3,
			Traceback: "Traceback (most recent call last):\n  line 3, in <program>\n    return x / y[0]\nZeroDivisionError: division by zero"}},
		{"in a helper", "def helper(d):\n    return d['missing']\n\nreturn helper({})", Done{Kind: KindException, Error: "KeyError: 'missing'", Line: 2,
			Traceback: "Traceback (most recent call last):\n  line 4, in <program>\n    return helper({})\n  line 2, in helper\n    return d['missing']\nKeyError: 'missing'"}},
		{"inside the stdlib", "import json\nreturn json.loads('{')", Done{Kind: KindException, Line: 2,
			Error:     "JSONDecodeError: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
			Traceback: "Traceback (most recent call last):\n  line 2, in <program>\n    return json.loads('{')\nJSONDecodeError: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"}},
		{"syntax", "x = 1\nif x\n    return 2", Done{Kind: KindSyntax, Error: "SyntaxError: expected ':' (line 2)", Line: 2,
			Traceback: "  line 2\n    if x\n        ^\nSyntaxError: expected ':'"}},
		{"indentation", "x = 1\n  y = 2", Done{Kind: KindSyntax, Error: "IndentationError: unexpected indent (line 2)", Line: 2,
			Traceback: "  line 2\n    y = 2\n    ^\nIndentationError: unexpected indent"}},
		{"await outside async", "await x", Done{Kind: KindSyntax, Error: "SyntaxError: 'await' outside async function (line 1)", Line: 1,
			Traceback: "  line 1\n    await x\n    ^\nSyntaxError: 'await' outside async function"}},
		{"SystemExit", "raise SystemExit(3)", Done{Kind: KindException, Error: "SystemExit: 3", Line: 1,
			Traceback: "Traceback (most recent call last):\n  line 1, in <program>\n    raise SystemExit(3)\nSystemExit: 3"}},
		{"a set", "return {1, 2}", Done{Kind: KindResult,
			Error: "TypeError: the return value is not JSON-serialisable: Object of type set is not JSON serializable; return dicts, lists, strings, numbers, booleans or None"}},
		{"a cycle", "a = []\na.append(a)\nreturn a", Done{Kind: KindResult,
			Error: "ValueError: the return value contains a circular reference (a container that contains itself); return a copy without the cycle"}},
		{"NaN", "return float('nan')", Done{Kind: KindResult, Error: "ValueError: the return value contains NaN or infinity, which JSON cannot carry"}},
		{"a generator", "yield 1", Done{Kind: KindResult,
			Error: "TypeError: the return value is not JSON-serialisable: Object of type generator is not JSON serializable; return dicts, lists, strings, numbers, booleans or None"}},
		{"NUL in the code", "return 1\x00", Done{Kind: KindSyntax, Error: "SyntaxError: source code string cannot contain null bytes (line 0)",
			Traceback: "  line 0\nSyntaxError: source code string cannot contain null bytes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := failure(t, e.run(t, tt.code, nil))
			if diff := cmp.Diff(tt.want, *got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// A program of the largest size, in characters that JSON escapes or
// spells in several bytes, reaches the child whole: the start message
// (about 350 KB of JSON here) is far over a pipe's buffer and is written while
// the child reads it.
func TestLargestProgramArrivesWhole(t *testing.T) {
	e := anyEnv(t)
	head, tail := "s = \"", "\"\nreturn [len(s), s[:4], s[-4:]]"
	body := strings.Repeat("é\\\"\u2028\x01€", (MaxCodeChars-len(head)-len(tail))/6)
	code := head + body + tail
	got := value(t, e.run(t, code, nil))
	if diff := cmp.Diff([]any{float64(len([]rune(body)) * 5 / 6), "é\"\u2028\x01", "\"\u2028\x01€"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestReturnValueIsBounded(t *testing.T) {
	rt := withLimits(t, Limits{MaxResultBytes: 1024})
	got := failure(t, runWith(t, rt, `return "x" * 2000`, nil))
	want := "ValueError: the return value is 2002 bytes of JSON, over the limit of 1024 (STEERABLE_RUN_CODE_MAX_RESULT_BYTES); return less: a summary, a count or a slice"
	if got.Error != want || got.Kind != KindResult {
		t.Errorf("got %+v", got)
	}
	if v := value(t, runWith(t, rt, `return "x" * 1000`, nil)); len(v.(string)) != 1000 {
		t.Errorf("a value under the limit: %v", v)
	}
}

func TestToolsCallForms(t *testing.T) {
	e := anyEnv(t)
	rec := &recorder{fn: func(_ context.Context, tool string, args json.RawMessage) protocol.ToolResult {
		if tool == "fail" {
			return protocol.ToolResult{Success: false, NeedsFollowup: true, Error: "it failed"}
		}
		return protocol.ToolResult{Success: true, Data: map[string]any{"args": args}}
	}}
	code := `out = []
out.append(tools.read_file(path="a")["data"]["args"])
out.append(tools.read_file({"path": "b", "limit": 2})["data"]["args"])
out.append(tools.call("read_file", {"path": "c"}, limit=3)["data"]["args"])
out.append(tools.call_or_raise("read_file", path="d")["success"])
r = tools.fail(x=1)
out.append([r["success"], r["error"]])
try:
    tools.call_or_raise("fail")
except ToolCallError as e:
    out.append([str(e), e.tool, e.result["error"]])
for bad in (lambda: tools.read_file(1), lambda: tools.read_file({}, {}), lambda: tools.call(""), lambda: tools.read_file(path={1, 2})):
    try:
        bad()
    except TypeError as e:
        out.append(str(e))
return out`
	got := value(t, e.run(t, code, rec.dispatch))
	want := []any{
		map[string]any{"path": "a"}, map[string]any{"path": "b", "limit": 2.0}, map[string]any{"path": "c", "limit": 3.0}, true,
		[]any{false, "it failed"}, []any{"fail failed: it failed", "fail", "it failed"},
		"tools.read_file takes keyword arguments or one dict, not int",
		"tools.read_file takes keyword arguments or one dict, not 2 positional arguments",
		"tools.call needs the tool's name as a non-empty string",
		"the arguments of tools.read_file are not JSON-serialisable: Object of type set is not JSON serializable",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"read_file", "read_file", "read_file", "read_file", "fail", "fail"}, rec.names); diff != "" {
		t.Errorf("dispatched (-want +got):\n%s", diff)
	}
}

func TestNestedRunCodeIsRefused(t *testing.T) {
	e := anyEnv(t)
	rec := &recorder{}
	out := e.run(t, `return tools.run_code(code="return 1", description="again")`, rec.dispatch)
	want := map[string]any{"success": false, "terminal": true, "error": "nested run_code is not allowed"}
	if diff := cmp.Diff(want, value(t, out)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if len(rec.names) != 0 || len(out.Calls) != 1 || out.Calls[0].Success {
		t.Errorf("dispatched %v, calls %+v", rec.names, out.Calls)
	}
}

func TestCallLimitInAProgram(t *testing.T) {
	rt := withLimits(t, Limits{MaxCalls: 3})
	caught := runWith(t, rt, `n = 0
try:
    for i in range(10000):
        tools.t()
        n += 1
except CallLimitError as err:
    return [n, str(err)]`, nil)
	want := []any{3.0, "run_code allows at most 3 nested tool calls per program (STEERABLE_RUN_CODE_MAX_CALLS); this call was not made: " +
		"do fewer calls per program (batch the work, or split it over several run_code calls)"}
	if diff := cmp.Diff(want, value(t, caught)); diff != "" {
		t.Errorf("caught (-want +got):\n%s", diff)
	}
	uncaught := failure(t, runWith(t, rt, "for i in range(10000):\n    tools.t()", nil))
	if !strings.HasPrefix(uncaught.Error, "CallLimitError: run_code allows at most 3 nested tool calls") || uncaught.Line != 2 {
		t.Errorf("uncaught: %+v", uncaught)
	}
	persist := runWith(t, rt, "for i in range(10000):\n    try:\n        tools.t()\n    except CallLimitError:\n        pass", nil)
	if persist.Done != nil || persist.Stopped == nil || len(persist.Calls) != 3 {
		t.Errorf("a program that keeps calling: done %+v, stopped %v, %d calls", persist.Done, persist.Stopped, len(persist.Calls))
	}
}

// Threads of the program call tools at once; every call gets its own
// reply.
func TestThreadsCallToolsConcurrently(t *testing.T) {
	rt := withLimits(t, Limits{MaxCalls: 24})
	rec := &recorder{fn: func(_ context.Context, _ string, args json.RawMessage) protocol.ToolResult {
		return protocol.ToolResult{Success: true, Data: map[string]any{"args": args}}
	}}
	got := value(t, runWith(t, rt, `import threading
from concurrent.futures import ThreadPoolExecutor
def work(i):
    return tools.echo(i=i)["data"]["args"]["i"]
with ThreadPoolExecutor(8) as pool:
    got = list(pool.map(work, range(24)))
return got`, rec.dispatch))
	want := make([]any, 24)
	for i := range want {
		want[i] = float64(i)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// The program's environment is the allowlist, its temp dir its own, and
// the dir is gone after the call (read through the guard's known hole).
func TestProgramEnvironmentAndTempDir(t *testing.T) {
	e := anyEnv(t)
	got := value(t, e.run(t, osEscape+`
env = dict(os.environ)
tmp = env["TMPDIR"]
with os.fdopen(os.open(os.path.join(tmp, "scratch"), os.O_CREAT | os.O_WRONLY), "w") as f:
    f.write("x")
return {"names": sorted(env), "tmp": tmp, "same": env["TMP"] == tmp == env["TEMP"]}`, nil)).(map[string]any)
	want := []any{"HOME", "LC_ALL", "PATH", "PYTHONDONTWRITEBYTECODE", "TEMP", "TMP", "TMPDIR"}
	if e.backend == "bwrap" { // bubblewrap sets PWD, the working directory, itself
		want = []any{"HOME", "LC_ALL", "PATH", "PWD", "PYTHONDONTWRITEBYTECODE", "TEMP", "TMP", "TMPDIR"}
	}
	if diff := cmp.Diff(want, got["names"]); diff != "" {
		t.Errorf("environment (-want +got):\n%s", diff)
	}
	tmp := got["tmp"].(string)
	if got["same"] != true || filepath.Dir(tmp) != filepath.Join(e.sb.TempDir(), "run_code") {
		t.Errorf("temp dir %v", got)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("the program's temp dir %s is still there: %v", tmp, err)
	}
}

// osEscape defeats the guard the way the issue names: through the
// subclasses of object to a class defined in Python, whose functions'
// globals hold the real builtins, and so the real __import__.
const osEscape = `for cls in ().__class__.__base__.__subclasses__():
    g = getattr(cls.__init__, "__globals__", None)
    if g and "__builtins__" in g:
        b = g["__builtins__"]
        b = b if isinstance(b, dict) else b.__dict__
        os = b["__import__"]("os")
        break
`

// A json.py in the workspace (the program's cwd) is never imported: -I
// keeps the cwd off sys.path.
func TestWorkspaceModulesAreNotImported(t *testing.T) {
	e := anyEnv(t)
	defer os.Remove(filepath.Join(e.ws, "json.py"))
	defer os.Remove(filepath.Join(e.ws, "sitecustomize.py"))
	os.WriteFile(filepath.Join(e.ws, "json.py"), []byte("raise SystemExit('hijacked')\n"), 0o644)
	os.WriteFile(filepath.Join(e.ws, "sitecustomize.py"), []byte("raise SystemExit('hijacked')\n"), 0o644)
	if v := value(t, e.run(t, `import json
return json.dumps([1])`, nil)); v != "[1]" {
		t.Errorf("value %v", v)
	}
}
