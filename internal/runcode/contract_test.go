package runcode

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	sidecar "steerable.dev/sidecar"
	"steerable.dev/sidecar/internal/config"
	"steerable.dev/sidecar/internal/sandbox"
	"steerable.dev/sidecar/internal/schema"
	"steerable.dev/sidecar/protocol"
)

// runCodeContract is the "runCode" section of tool_contract.json, as far
// as this package implements it (the tool's fields are checked in
// package tools).
type runCodeContract struct {
	Interpreter struct {
		Argv       []string `json:"argv"`
		Bootstrap  string   `json:"bootstrap"`
		MinVersion string   `json:"minVersion"`
	} `json:"interpreter"`
	Bridge struct {
		Version  int `json:"version"`
		Fds      struct{ ChildToSidecar, SidecarToChild int }
		Messages map[string]struct {
			Direction string          `json:"direction"`
			Schema    json.RawMessage `json:"schema"`
		} `json:"messages"`
		Examples []struct {
			Line  string `json:"line"`
			Valid bool   `json:"valid"`
		} `json:"examples"`
	} `json:"bridge"`
	Limits map[string]json.RawMessage `json:"limits"`
	Guard  struct {
		AllowedModules  []string `json:"allowedModules"`
		ImportRefusal   string   `json:"importRefusal"`
		RelativeRefusal string   `json:"relativeImportRefusal"`
		RefusedExamples []string `json:"refusedExamples"`
		RemovedBuiltins []string `json:"removedBuiltins"`
		ProgramGlobals  []string `json:"programGlobals"`
	} `json:"guard"`
	Environment struct {
		Allow         []string          `json:"allow"`
		AllowPrefixes []string          `json:"allowPrefixes"`
		Set           map[string]string `json:"set"`
		Never         []string          `json:"never"`
	} `json:"environment"`
}

func loadContract(t *testing.T) (runCodeContract, map[string]*schema.Schema) {
	t.Helper()
	var doc struct {
		RunCode runCodeContract `json:"runCode"`
	}
	if err := json.Unmarshal(sidecar.Contract, &doc); err != nil {
		t.Fatal(err)
	}
	c := doc.RunCode
	schemas := map[string]*schema.Schema{}
	for name, m := range c.Bridge.Messages {
		var err error
		if schemas[name], err = schema.Compile("runCode/"+name, m.Schema); err != nil {
			t.Fatalf("schema of %s: %v", name, err)
		}
	}
	return c, schemas
}

func validates(sch *schema.Schema, line []byte) error {
	inst, err := schema.Decode(line)
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

// childSchema picks the schema of a child → sidecar frame by its type.
func childSchema(schemas map[string]*schema.Schema, line []byte) *schema.Schema {
	var probe struct{ Type string }
	json.Unmarshal(line, &probe)
	if probe.Type == TypeDone {
		return schemas["done"]
	}
	return schemas["call"]
}

func TestContractBridgeExamples(t *testing.T) {
	c, schemas := loadContract(t)
	if c.Bridge.Version != Version || c.Bridge.Fds.ChildToSidecar != 3 || c.Bridge.Fds.SidecarToChild != 4 {
		t.Errorf("contract bridge %+v, want version %d on fds 3 and 4", c.Bridge, Version)
	}
	if len(c.Bridge.Examples) < 10 {
		t.Fatalf("only %d examples", len(c.Bridge.Examples))
	}
	for _, ex := range c.Bridge.Examples {
		_, err := Decode([]byte(ex.Line))
		if (err == nil) != ex.Valid {
			t.Errorf("Decode(%s) = %v, contract says valid=%v", ex.Line, err, ex.Valid)
		}
		if json.Valid([]byte(ex.Line)) {
			if err := validates(childSchema(schemas, []byte(ex.Line)), []byte(ex.Line)); (err == nil) != ex.Valid {
				t.Errorf("schema on %s: %v, contract says valid=%v", ex.Line, err, ex.Valid)
			}
		}
	}
}

// What this package writes matches the sidecar → child schemas.
func TestContractSidecarMessages(t *testing.T) {
	_, schemas := loadContract(t)
	for _, tt := range []struct {
		schema string
		line   []byte
	}{
		{"start", EncodeStart("return 1", 1024)},
		{"reply", EncodeResult(1, protocol.ToolResult{Success: true, Data: map[string]any{"x": 1}})},
		{"reply", EncodeResult(2, protocol.ToolResult{Success: false, Error: "no"})},
		{"reply", EncodeRefusal(3, "over the limit")},
	} {
		if err := validates(schemas[tt.schema], tt.line); err != nil {
			t.Errorf("%s %s: %v", tt.schema, tt.line, err)
		}
	}
}

// rawRunner runs the real runner outside any sandbox with the bridge in
// the test's hands, and returns every frame it wrote and every reply it
// got.
func rawRunner(t *testing.T, in Interpreter, code string) (childFrames, replies [][]byte, stderr string) {
	t.Helper()
	fromChild, childOut, _ := os.Pipe()
	childIn, toChild, _ := os.Pipe()
	defer fromChild.Close()
	defer toChild.Close()
	var errBuf bytes.Buffer
	cmd := exec.Command(in.Path, Argv(in.Path, "contract")[1:]...)
	cmd.Stdin, cmd.Stderr = bytes.NewReader(in.runner), &errBuf
	cmd.ExtraFiles = []*os.File{childOut, childIn}
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	childOut.Close()
	childIn.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		toChild.Write(EncodeStart(code, 4096))
		sc := bufio.NewScanner(fromChild)
		for sc.Scan() {
			line := append([]byte{}, sc.Bytes()...)
			childFrames = append(childFrames, line)
			f, err := Decode(line)
			if err != nil {
				return
			}
			if call, ok := f.(Call); ok {
				reply := EncodeResult(call.ID, protocol.ToolResult{Success: true, Data: map[string]any{"args": call.Arguments}})
				if call.ID == 3 {
					reply = EncodeRefusal(call.ID, "refused by the test")
				}
				replies = append(replies, reply)
				toChild.Write(reply)
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the runner did not finish")
	}
	cmd.Wait()
	return childFrames, replies, errBuf.String()
}

func contractInterpreter(t *testing.T) Interpreter {
	t.Helper()
	in, err := anyEnv(t).rt.Interpreter()
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// What the runner writes matches the child → sidecar schemas, for every
// kind of ending.
func TestContractRunnerMessages(t *testing.T) {
	_, schemas := loadContract(t)
	exe := contractInterpreter(t)
	for _, code := range []string{
		"a = tools.read_file(path='x')\nb = tools.list_items()\ntry:\n    tools.third()\nexcept CallLimitError:\n    pass\nreturn [a, b]",
		"return None", "raise ValueError('bad')", "x = = 1", "return {1, 2}", "return 'x' * 5000",
	} {
		frames, replies, stderr := rawRunner(t, exe, code)
		if len(frames) == 0 {
			t.Fatalf("%q: the runner wrote nothing; stderr %s", code, stderr)
		}
		for _, f := range frames {
			if err := validates(childSchema(schemas, f), f); err != nil {
				t.Errorf("%q: runner frame %s: %v", code, f, err)
			}
		}
		for _, r := range replies {
			if err := validates(schemas["reply"], r); err != nil {
				t.Errorf("reply %s: %v", r, err)
			}
		}
	}
}

func TestContractLimits(t *testing.T) {
	c, _ := loadContract(t)
	vars := map[string]config.Var{}
	for _, v := range config.Vars() {
		vars[v.Name] = v
	}
	for _, key := range []string{"maxCalls", "timeoutMs", "maxResultBytes"} {
		var l struct {
			Variable     string
			Default, Min int
			Max          int
		}
		json.Unmarshal(c.Limits[key], &l)
		v, ok := vars[l.Variable]
		if !ok {
			t.Errorf("%s: %s is not a configuration variable", key, l.Variable)
			continue
		}
		if v.Default != strconv.Itoa(l.Default) || v.Min == nil || v.Max == nil || *v.Min != int64(l.Min) || *v.Max != int64(l.Max) {
			t.Errorf("%s: config has default %s, %s; contract %d, %d..%d", key, v.Default, v.Allowed(), l.Default, l.Min, l.Max)
		}
	}
	fixed := map[string]int{"maxCodeCharacters": MaxCodeChars, "maxCallsInFlight": MaxInflightCalls}
	for key, want := range fixed {
		if got := string(c.Limits[key]); got != strconv.Itoa(want) {
			t.Errorf("%s: contract %s, implementation %d", key, got, want)
		}
	}
	def := Limits{}.withDefaults()
	if def.MaxCalls != 32 || def.Timeout != 60*time.Second || def.MaxResultBytes != 1<<20 {
		t.Errorf("defaults %+v disagree with the contract", def)
	}
	if c.Interpreter.MinVersion != fmt.Sprintf("%d.%d", MinVersion[0], MinVersion[1]) {
		t.Errorf("minVersion %s", c.Interpreter.MinVersion)
	}
	if diff := cmp.Diff(c.Interpreter.Argv[1:5], Argv("x", "id")[1:5]); diff != "" {
		t.Errorf("argv (-contract +implementation):\n%s", diff)
	}
	if c.Interpreter.Bootstrap != Bootstrap || c.Interpreter.Argv[5] != "<bootstrap>" {
		t.Errorf("bootstrap %q, implementation %q", c.Interpreter.Bootstrap, Bootstrap)
	}
}

// The guard lists are the runner's, and the runner behaves as they say.
func TestContractGuard(t *testing.T) {
	c, _ := loadContract(t)
	src := string(runnerSource)
	list := func(start string) []string {
		block := src[strings.Index(src, start):]
		block = block[:strings.Index(block, ")")]
		var out []string
		for _, m := range regexp.MustCompile(`"([A-Za-z_.]+)"`).FindAllStringSubmatch(block, -1) {
			out = append(out, m[1])
		}
		return out
	}
	allowed := list("ALLOWED_MODULES = frozenset(")
	slices.Sort(allowed)
	if diff := cmp.Diff(c.Guard.AllowedModules, allowed); diff != "" {
		t.Errorf("allowed modules (-contract +runner.py):\n%s", diff)
	}
	if diff := cmp.Diff(c.Guard.RemovedBuiltins, list("REMOVED_BUILTINS = (")); diff != "" {
		t.Errorf("removed builtins (-contract +runner.py):\n%s", diff)
	}
	var code strings.Builder
	code.WriteString("out = []\n")
	for _, m := range c.Guard.AllowedModules {
		fmt.Fprintf(&code, "import %s\nout.append('ok')\n", m)
	}
	for _, m := range c.Guard.RefusedExamples {
		fmt.Fprintf(&code, "try:\n    import %s\n    out.append('imported')\nexcept ImportError as e:\n    out.append(str(e))\n", m)
	}
	for _, b := range c.Guard.RemovedBuiltins {
		fmt.Fprintf(&code, "out.append(%q in __builtins__)\n", b)
	}
	for _, g := range c.Guard.ProgramGlobals {
		fmt.Fprintf(&code, "out.append(%q in globals())\n", g)
	}
	var want []any
	for range c.Guard.AllowedModules {
		want = append(want, "ok")
	}
	for _, m := range c.Guard.RefusedExamples {
		want = append(want, strings.ReplaceAll(c.Guard.ImportRefusal, "{module}", m))
	}
	for range c.Guard.RemovedBuiltins {
		want = append(want, false)
	}
	for range c.Guard.ProgramGlobals {
		want = append(want, true)
	}
	code.WriteString("return out")
	if diff := cmp.Diff(want, value(t, anyEnv(t).run(t, code.String(), nil))); diff != "" {
		t.Errorf("(-contract +runner):\n%s", diff)
	}
	if got := failure(t, anyEnv(t).run(t, "from . import x", nil)); got.Error != "ImportError: "+c.Guard.RelativeRefusal {
		t.Errorf("relative import: %s", got.Error)
	}
}

func TestContractEnvironment(t *testing.T) {
	c, _ := loadContract(t)
	environ := []string{"LC_ALL=C", "SECRET_TOKEN=x", "EDITOR=vi", "TERM=xterm"}
	for _, n := range append(c.Environment.Allow, c.Environment.Never...) {
		environ = append(environ, n+"=v")
	}
	kept, _ := sandbox.EnvRules{}.Filter(sandbox.EnvAllowlist, environ)
	var names []string
	for _, kv := range kept {
		names = append(names, kv[:strings.IndexByte(kv, '=')])
	}
	want := append([]string{"LC_ALL"}, c.Environment.Allow...)
	want = append(want, "PYTHONDONTWRITEBYTECODE")
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("environment (-contract +implementation):\n%s", diff)
	}
	if c.Environment.Set["PYTHONDONTWRITEBYTECODE"] != "1" || !slices.Contains(kept, "PYTHONDONTWRITEBYTECODE=1") {
		t.Errorf("PYTHONDONTWRITEBYTECODE: %v", kept)
	}
}
