package notebook

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func sample(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/sample.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func parse(t *testing.T, b []byte) *Notebook {
	t.Helper()
	nb, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return nb
}

func TestParse(t *testing.T) {
	nb := parse(t, sample(t))
	var ids, types []string
	for _, c := range nb.Cells {
		ids, types = append(ids, c.ID), append(types, c.Type)
	}
	if d := cmp.Diff([]string{"intro", "load", "plot", "boom"}, ids); d != "" {
		t.Errorf("ids (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"markdown", "code", "code", "code"}, types); d != "" {
		t.Errorf("types (-want +got):\n%s", d)
	}
	load, plot, boom := nb.Cells[1], nb.Cells[2], nb.Cells[3]
	if load.Source != "print('hello')\nprint('world')" || load.Outputs[0].Text != "hello\nworld\n" || load.Outputs[0].Name != "stdout" || *load.ExecutionCount != 1 {
		t.Errorf("load: %+v", load)
	}
	if len(plot.Outputs[0].Images) != 1 || plot.Outputs[0].Images[0].MimeType != "image/png" || !strings.HasPrefix(string(plot.Outputs[0].Images[0].Data), "\x89PNG\r\n\x1a\n") || plot.Outputs[0].Text != "<Figure size 640x480>" {
		t.Errorf("plot: %+v", plot.Outputs)
	}
	if o := boom.Outputs[0]; o.Type != "error" || o.EName != "ZeroDivisionError" || len(o.Traceback) != 4 {
		t.Errorf("boom: %+v", o)
	}
}

// TestParseWithoutIDs: cells of nbformat < 4.5 are named by position.
func TestParseWithoutIDs(t *testing.T) {
	nb := parse(t, []byte(`{"cells":[{"cell_type":"code","source":"a","outputs":[],"metadata":{}},{"cell_type":"raw","source":[],"metadata":{}}],"metadata":{},"nbformat":4,"nbformat_minor":2}`))
	if nb.Cells[0].ID != "cell-1" || nb.Cells[1].ID != "cell-2" || nb.Cells[0].HasID || !nb.Cells[0].sourceIsString {
		t.Errorf("%+v", nb.Cells)
	}
}

func TestParseRefuses(t *testing.T) {
	for _, in := range []string{``, `[]`, `{"cells":{}}`, `{"nbformat":4}`, `{"cells":[],"nbformat":3}`, `{"cells":[1],"nbformat":4}`, `{"cells":[],"nbformat":4} x`, `{"cells":[{"source":7}],"nbformat":4}`} {
		if _, err := Parse([]byte(in)); !errors.Is(err, ErrNotNotebook) {
			t.Errorf("Parse(%s) = %v", in, err)
		}
	}
}

func src(s string) *string { return &s }

// TestApplyKeepsOtherBytes: every edit leaves the bytes before and after
// the cell it touches exactly as they were, and the result reads back with
// the change made.
func TestApplyKeepsOtherBytes(t *testing.T) {
	b := sample(t)
	nb := parse(t, b)
	for _, tc := range []struct {
		name  string
		edit  Edit
		cells []string // ids after
		check func(t *testing.T, after *Notebook)
	}{
		{"replace code", Edit{CellID: "load", Mode: Replace, Source: src("x = 1\nprint(x)\n")}, []string{"intro", "load", "plot", "boom"}, func(t *testing.T, a *Notebook) {
			c := a.Cells[1]
			if c.Source != "x = 1\nprint(x)\n" || len(c.Outputs) != 0 || c.ExecutionCount != nil || c.Type != "code" {
				t.Errorf("%+v", c)
			}
		}},
		{"replace, code to markdown", Edit{CellID: "plot", Mode: Replace, Source: src("## now prose"), Type: "markdown"}, []string{"intro", "load", "plot", "boom"}, func(t *testing.T, a *Notebook) {
			c := a.Cells[2]
			raw := string(a.src[c.start:c.end])
			if c.Type != "markdown" || strings.Contains(raw, "outputs") || strings.Contains(raw, "execution_count") {
				t.Errorf("%s", raw)
			}
		}},
		{"replace, markdown to code", Edit{CellID: "intro", Mode: Replace, Source: src("1"), Type: "code"}, []string{"intro", "load", "plot", "boom"}, func(t *testing.T, a *Notebook) {
			raw := string(a.src[a.Cells[0].start:a.Cells[0].end])
			if a.Cells[0].Type != "code" || !strings.Contains(raw, `"execution_count": null,`) || !strings.Contains(raw, `"outputs": [],`) {
				t.Errorf("%s", raw)
			}
		}},
		{"insert after", Edit{CellID: "load", Mode: Insert, Source: src("y = 2")}, []string{"intro", "load", "*", "plot", "boom"}, nil},
		{"insert at the top", Edit{Mode: Insert, Source: src("# top"), Type: "markdown"}, []string{"*", "intro", "load", "plot", "boom"}, nil},
		{"insert at the end", Edit{CellID: "boom", Mode: Insert, Source: src("")}, []string{"intro", "load", "plot", "boom", "*"}, nil},
		{"delete first", Edit{CellID: "intro", Mode: Delete}, []string{"load", "plot", "boom"}, nil},
		{"delete middle", Edit{CellID: "plot", Mode: Delete}, []string{"intro", "load", "boom"}, nil},
		{"delete last", Edit{CellID: "boom", Mode: Delete}, []string{"intro", "load", "plot"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, id, err := nb.Apply(tc.edit)
			if err != nil {
				t.Fatal(err)
			}
			after := parse(t, out)
			var ids []string
			for _, c := range after.Cells {
				if c.ID == id && tc.edit.Mode == Insert {
					ids = append(ids, "*")
					continue
				}
				ids = append(ids, c.ID)
			}
			if d := cmp.Diff(tc.cells, ids); d != "" {
				t.Fatalf("cells (-want +got):\n%s", d)
			}
			for _, c := range nb.Cells { // every untouched cell is byte-identical
				if c.ID == tc.edit.CellID && tc.edit.Mode != Insert {
					continue
				}
				if j := after.index(c.ID); !bytes.Equal(b[c.start:c.end], out[after.Cells[j].start:after.Cells[j].end]) {
					t.Errorf("cell %s changed", c.ID)
				}
			}
			if !bytes.Equal(b[:nb.cellsOpen], out[:after.cellsOpen]) || !bytes.Equal(b[nb.cellsClose:], out[after.cellsClose:]) {
				t.Error("bytes outside the cells array changed")
			}
			if tc.check != nil {
				tc.check(t, after)
			}
			jupyterAgrees(t, b, tc.edit, id, out)
		})
	}
}

// jupyterAgrees: for a notebook as Jupyter writes it (indent 1, sorted
// keys, ensure_ascii off, a final newline), the spliced result is byte for
// byte what Python's json module writes for the same edit made on the
// parsed document. python3 is on every CI machine; a machine without it
// skips this half of the check, saying so.
func jupyterAgrees(t *testing.T, in []byte, e Edit, id string, got []byte) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Log("python3 not found: the comparison with Python's json.dumps is skipped")
		return
	}
	edit, _ := json.Marshal(map[string]any{"cellId": e.CellID, "mode": e.Mode, "source": e.Source, "type": e.Type, "newId": id})
	script := `
import json, sys
nb = json.loads(open(sys.argv[1], encoding="utf-8").read())
e = json.loads(sys.argv[2])
ids = [c.get("id") for c in nb["cells"]]
def lines(s):
    return s.splitlines(True)
if e["mode"] == "delete":
    del nb["cells"][ids.index(e["cellId"])]
elif e["mode"] == "replace":
    c = nb["cells"][ids.index(e["cellId"])]
    t = e["type"] or c["cell_type"]
    c["cell_type"] = t
    c["source"] = lines(e["source"])
    if t == "code":
        c["outputs"] = []; c["execution_count"] = None
    else:
        c.pop("outputs", None); c.pop("execution_count", None)
else:
    t = e["type"] or "code"
    c = {"cell_type": t, "id": e["newId"], "metadata": {}, "source": lines(e["source"])}
    if t == "code":
        c["outputs"] = []; c["execution_count"] = None
    at = ids.index(e["cellId"]) + 1 if e["cellId"] else 0
    nb["cells"].insert(at, c)
sys.stdout.write(json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
`
	f := t.TempDir() + "/in.ipynb"
	if err := os.WriteFile(f, in, 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := exec.Command(py, "-c", script, f, string(edit)).Output()
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("differs from Python's json.dumps (-python +ours):\n%s", d)
	}
}

// TestApplyCompact: a notebook written on one line stays on one line.
func TestApplyCompact(t *testing.T) {
	in := []byte(`{"cells":[{"cell_type":"code","execution_count":4,"metadata":{},"outputs":[{"output_type":"stream","name":"stdout","text":"x"}],"source":"a=1"}],"metadata":{},"nbformat":4,"nbformat_minor":4}`)
	nb := parse(t, in)
	out, _, err := nb.Apply(Edit{CellID: "cell-1", Mode: Replace, Source: src("b = 2\n")})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"cells":[{"cell_type":"code","execution_count":null,"metadata":{},"outputs":[],"source":"b = 2\n"}],"metadata":{},"nbformat":4,"nbformat_minor":4}`
	if string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
	out, _, _ = parse(t, out).Apply(Edit{CellID: "cell-1", Mode: Insert, Source: src("c")})
	if bytes.Contains(out, []byte("\n")) || bytes.Contains(out, []byte(`": `)) || bytes.Contains(out, []byte(`}, {`)) {
		t.Errorf("insert added white space: %s", out)
	}
	empty := parse(t, []byte("{\n \"cells\": [],\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n"))
	out, _, _ = empty.Apply(Edit{Mode: Insert, Source: src("a\nb"), Type: "markdown"})
	if !strings.HasPrefix(string(out), "{\n \"cells\": [\n  {\n   \"cell_type\": \"markdown\",\n") || !strings.Contains(string(out), "\"source\": [\n    \"a\\n\",\n    \"b\"\n   ]\n  }\n ],") {
		t.Errorf("insert into an empty notebook:\n%s", out)
	}
}

func TestApplyRefuses(t *testing.T) {
	nb := parse(t, sample(t))
	var ee *EditError
	for _, e := range []Edit{
		{CellID: "nope", Mode: Replace, Source: src("x")},
		{CellID: "load", Mode: Replace},
		{CellID: "load", Mode: Insert},
		{CellID: "load", Mode: "append", Source: src("x")},
		{CellID: "load", Mode: Replace, Source: src("x"), Type: "python"},
	} {
		if _, _, err := nb.Apply(e); !errors.As(err, &ee) {
			t.Errorf("%+v: %v", e, err)
		}
	}
	_, _, err := nb.Apply(Edit{CellID: "nope", Mode: Delete})
	if !errors.As(err, &ee) || !strings.Contains(ee.Msg, "intro, load, plot, boom") {
		t.Errorf("unknown id: %v", err)
	}
}

// FuzzNotebook: Parse never panics; an edit of what it accepts never
// panics, and what the edit returns parses, with one cell more, the same
// or one fewer.
func FuzzNotebook(f *testing.F) {
	f.Add(sample(f), "load", "x\ny", 0)
	f.Add([]byte(`{"cells":[{"cell_type":"code","source":"a"}],"nbformat":4,"nbformat_minor":4}`), "cell-1", "", 1)
	f.Add([]byte(`{"cells":[],"nbformat":4}`), "", "z", 1)
	f.Fuzz(func(t *testing.T, b []byte, id, source string, mode int) {
		nb, err := Parse(b)
		if err != nil {
			return
		}
		modes := []string{Replace, Insert, Delete}
		e := Edit{CellID: id, Mode: modes[(mode%3+3)%3], Source: &source}
		out, _, err := nb.Apply(e)
		if err != nil {
			return
		}
		after, err := Parse(out)
		if err != nil {
			t.Fatalf("edit %+v made an unreadable notebook: %v\n%s", e, err, out)
		}
		want := len(nb.Cells) + map[string]int{Replace: 0, Insert: 1, Delete: -1}[e.Mode]
		if len(after.Cells) != want {
			t.Fatalf("%d cells after %s, want %d", len(after.Cells), e.Mode, want)
		}
	})
}
