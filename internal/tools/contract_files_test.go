package tools_test

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	sidecar "steerable.dev/sidecar"
	"steerable.dev/sidecar/internal/files"
	"steerable.dev/sidecar/internal/readstate"
	"steerable.dev/sidecar/internal/textedit"
	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

// fileContract is the "fileTools" section of tool_contract.json, as far as
// the tests check it.
type fileContract struct {
	Tools map[string]struct {
		Mode  protocol.Mode `json:"mode"`
		Input struct {
			Required []string `json:"required"`
			Optional []string `json:"optional"`
		} `json:"input"`
		Result []string `json:"result"`
	} `json:"tools"`
	VersionTokens struct {
		ResultField, PatchResultField, ExpectedField, Pattern string
		Conflict                                              struct {
			Success       bool     `json:"success"`
			NeedsFollowup bool     `json:"needsFollowup"`
			ErrorContains string   `json:"errorContains"`
			Data          []string `json:"data"`
			Code          string   `json:"code"`
		} `json:"conflict"`
	} `json:"versionTokens"`
	Gates []struct {
		Order         int    `json:"order"`
		Code          string `json:"code"`
		ErrorContains string `json:"errorContains"`
	} `json:"gates"`
	ReadClip struct {
		MaxCharacters, HeadCharacters, TailCharacters int
		Marker                                        string
	} `json:"readClip"`
	Edit struct {
		Fields      map[string]string `json:"fields"`
		MatchLevels []string          `json:"matchLevels"`
		MatchFields []string          `json:"matchFields"`
		ErrorCodes  []string          `json:"errorCodes"`
	} `json:"edit"`
	Patch struct {
		Ops        []string `json:"ops"`
		FileFields []string `json:"fileFields"`
	} `json:"patch"`
}

func loadFileContract(t *testing.T) fileContract {
	t.Helper()
	var c struct {
		FileTools fileContract `json:"fileTools"`
	}
	if err := json.Unmarshal(sidecar.Contract, &c); err != nil {
		t.Fatal(err)
	}
	if len(c.FileTools.Tools) != 5 {
		t.Fatalf("fileTools lists %d tools", len(c.FileTools.Tools))
	}
	return c.FileTools
}

// fileTools builds the registered built-in file tools on a temporary
// workspace.
func fileTools(t *testing.T) (*tools.Registry, *tools.Dispatcher, string) {
	t.Helper()
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	ws, err := files.Open(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	reg := tools.NewRegistry()
	deps := tools.Deps{Host: tools.NoHost{}, Log: zerolog.Nop(), Files: ws, ReadState: readstate.NewStore(), RequireReadBeforeWrite: true, FileMaxBytes: 1 << 20}
	if err := reg.Register(protocol.SourceBuiltin, tools.Builtins(deps)...); err != nil {
		t.Fatal(err)
	}
	return reg, tools.NewDispatcher(reg, nil, zerolog.Nop()), dir
}

// TestContractFileToolSchemas: every tool the contract names is registered
// with its mode, and its parameters schema has exactly the contract's
// required and optional fields and refuses others.
func TestContractFileToolSchemas(t *testing.T) {
	c := loadFileContract(t)
	reg, _, _ := fileTools(t)
	for name, want := range c.Tools {
		e, ok := reg.Lookup(name)
		if !ok {
			t.Errorf("%s is in the contract but not registered", name)
			continue
		}
		var schema struct {
			Required             []string                   `json:"required"`
			Properties           map[string]json.RawMessage `json:"properties"`
			AdditionalProperties *bool                      `json:"additionalProperties"`
		}
		if err := json.Unmarshal(e.Desc.Parameters, &schema); err != nil {
			t.Fatal(err)
		}
		if e.Desc.Mode != want.Mode {
			t.Errorf("%s: mode %s, contract %s", name, e.Desc.Mode, want.Mode)
		}
		if diff := cmp.Diff(sorted(want.Input.Required), sorted(schema.Required)); diff != "" {
			t.Errorf("%s: required (-contract +schema):\n%s", name, diff)
		}
		if diff := cmp.Diff(sorted(append(want.Input.Required, want.Input.Optional...)), slices.Sorted(maps.Keys(schema.Properties))); diff != "" {
			t.Errorf("%s: properties (-contract +schema):\n%s", name, diff)
		}
		if schema.AdditionalProperties == nil || *schema.AdditionalProperties {
			t.Errorf("%s: additionalProperties must be false", name)
		}
	}
}

// TestContractFileToolResults runs each tool once and checks its data
// carries exactly the contract's result fields, then checks a conflict,
// the gate codes, the clip, the edit fields and the patch ops.
func TestContractFileToolResults(t *testing.T) {
	c := loadFileContract(t)
	_, d, dir := fileTools(t)
	os.WriteFile(dir+"/a.txt", []byte("one\ntwo\n"), 0o644)
	calls := []struct{ tool, args string }{
		{"read_file", `{"path":"a.txt"}`},
		{"write_file", `{"path":"b.txt","content":"b\n"}`},
		{"edit_file", `{"path":"a.txt","edits":[{"oldText":"two","newText":"2"}]}`},
		{"apply_patch", "{\"patch\":\"*** Begin Patch\\n*** Update File: b.txt\\n-b\\n+B\\n*** Add File: c.txt\\n+c\\n*** End Patch\"}"},
		{"read_file", `{"path":"n.ipynb"}`},
		{"notebook_edit", `{"path":"n.ipynb","cellId":"cell-1","editMode":"replace","newSource":"b"}`},
	}
	os.WriteFile(dir+"/n.ipynb", []byte(`{"cells":[{"cell_type":"code","source":"a","metadata":{},"outputs":[]}],"metadata":{},"nbformat":4,"nbformat_minor":4}`), 0o644)
	var patchData map[string]any
	for _, call := range calls {
		res := dispatch(t, d, call.tool, call.args)
		if !res.Success {
			t.Fatalf("%s: %s", call.tool, res.Error)
		}
		delete(res.Data, "durationMs")
		if strings.HasSuffix(call.args, `.ipynb"}`) {
			continue // a notebook read: TestContractReadKinds
		}
		if diff := cmp.Diff(sorted(c.Tools[call.tool].Result), slices.Sorted(maps.Keys(res.Data))); diff != "" {
			t.Errorf("%s: result fields (-contract +data):\n%s", call.tool, diff)
		}
		if v, ok := res.Data[c.VersionTokens.ResultField].(string); ok && !readstate.Valid(v) {
			t.Errorf("%s: version %q", call.tool, v)
		}
		if call.tool == "apply_patch" {
			patchData = res.Data
		}
	}
	for p, v := range patchData[c.VersionTokens.PatchResultField].(map[string]any) {
		b, _ := os.ReadFile(p)
		if v != readstate.Of(b) {
			t.Errorf("versions[%s] = %v, not the hash of the file", p, v)
		}
	}
	for _, f := range patchData["files"].([]any) {
		for k := range f.(map[string]any) {
			if !slices.Contains(c.Patch.FileFields, k) {
				t.Errorf("files entry field %q is not in the contract", k)
			}
		}
		if op := f.(map[string]any)["op"].(string); !slices.Contains(c.Patch.Ops, op) {
			t.Errorf("op %q is not in the contract", op)
		}
	}
	checkConflict(t, c, d, dir)
	checkGateCodes(t, c, d, dir)
	if c.ReadClip.HeadCharacters != files.ClipHead || c.ReadClip.TailCharacters != files.ClipTail ||
		c.ReadClip.MaxCharacters != files.ClipHead+files.ClipTail || files.ClipMarker(7) != strings.Replace(c.ReadClip.Marker, "N", "7", 1) {
		t.Errorf("readClip %+v disagrees with files.Clip*", c.ReadClip)
	}
	if diff := cmp.Diff(c.Edit.MatchLevels, textedit.Levels); diff != "" {
		t.Errorf("match levels (-contract +code):\n%s", diff)
	}
	if diff := cmp.Diff(sorted(c.Edit.ErrorCodes), sorted(textedit.EditCodes)); diff != "" {
		t.Errorf("edit codes (-contract +code):\n%s", diff)
	}
	m, _ := json.Marshal(textedit.Match{})
	var mf map[string]any
	json.Unmarshal(m, &mf)
	if diff := cmp.Diff(sorted(c.Edit.MatchFields), slices.Sorted(maps.Keys(mf))); diff != "" {
		t.Errorf("match fields (-contract +code):\n%s", diff)
	}
	e, _ := json.Marshal(textedit.Edit{})
	if want := `{"` + c.Edit.Fields["oldText"] + `":"","` + c.Edit.Fields["newText"] + `":""}`; string(e) != want {
		t.Errorf("edit fields %s, contract %s", e, want)
	}
}

func checkConflict(t *testing.T, c fileContract, d *tools.Dispatcher, dir string) {
	os.WriteFile(dir+"/a.txt", []byte("changed elsewhere\n"), 0o644)
	res := dispatch(t, d, "write_file", `{"path":"a.txt","content":"x"}`)
	cc := c.VersionTokens.Conflict
	delete(res.Data, "durationMs")
	if res.Success != cc.Success || res.NeedsFollowup != cc.NeedsFollowup || !strings.Contains(res.Error, cc.ErrorContains) || res.Data["code"] != cc.Code {
		t.Errorf("conflict result %+v disagrees with the contract %+v", res, cc)
	}
	if diff := cmp.Diff(sorted(cc.Data), slices.Sorted(maps.Keys(res.Data))); diff != "" {
		t.Errorf("conflict data (-contract +data):\n%s", diff)
	}
}

func checkGateCodes(t *testing.T, c fileContract, d *tools.Dispatcher, dir string) {
	os.WriteFile(dir+"/unread.txt", []byte("u\n"), 0o644)
	os.WriteFile(dir+"/ranged.txt", []byte("1\n2\n"), 0o644)
	dispatch(t, d, "read_file", `{"path":"ranged.txt","limit":1}`)
	got := map[int]protocol.ToolResult{
		1: dispatch(t, d, "write_file", `{"path":"unread.txt","content":"x","expectedVersion":"`+strings.Repeat("0", 64)+`"}`),
		2: dispatch(t, d, "write_file", `{"path":"unread.txt","content":"x"}`),
		3: dispatch(t, d, "write_file", `{"path":"ranged.txt","content":"x"}`),
		4: dispatch(t, d, "edit_file", `{"path":"a.txt","edits":[{"oldText":"changed","newText":"x"}]}`),
	}
	for _, g := range c.Gates {
		res := got[g.Order]
		if res.Success || !res.NeedsFollowup || res.Data["code"] != g.Code || !strings.Contains(res.Error, g.ErrorContains) {
			t.Errorf("gate %d: result %+v, contract code %s", g.Order, res, g.Code)
		}
	}
}

func dispatch(t *testing.T, d *tools.Dispatcher, name, args string) protocol.ToolResult {
	t.Helper()
	res := d.Dispatch(context.Background(), tools.Invocation{ToolCall: protocol.ToolCall{Name: name, Arguments: json.RawMessage(args)}})
	b, _ := json.Marshal(res)
	var out protocol.ToolResult
	json.Unmarshal(b, &out)
	return out
}

func sorted(s []string) []string { return slices.Sorted(slices.Values(s)) }
