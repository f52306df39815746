package tools_test

import (
	"encoding/json"
	"maps"
	"os"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	sidecar "steerable.dev/sidecar"
	"steerable.dev/sidecar/internal/mediatest"
	"steerable.dev/sidecar/internal/todo"
	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

// TestContractReadKinds: read_file of an image, a PDF and a notebook
// returns exactly the data fields and content block types the contract's
// fileTools.readKinds lists, and the limits it names are the code's.
func TestContractReadKinds(t *testing.T) {
	var c struct {
		FileTools struct {
			ReadKinds map[string]json.RawMessage `json:"readKinds"`
		} `json:"fileTools"`
	}
	if err := json.Unmarshal(sidecar.Contract, &c); err != nil {
		t.Fatal(err)
	}
	type kind struct {
		Result, Content []string
		MaxPages        int
		Limits          struct {
			MaxEdge, MaxBytes struct{ Default int }
			MaxPixels         int
		}
	}
	kinds := map[string]kind{}
	for _, name := range []string{"image", "pdf", "notebook"} {
		var k kind
		if err := json.Unmarshal(c.FileTools.ReadKinds[name], &k); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		kinds[name] = k
	}
	_, d, dir := fileTools(t)
	nb, _ := os.ReadFile("../notebook/testdata/sample.ipynb")
	os.WriteFile(dir+"/a.png", mediatest.PNG(mediatest.Gradient(40, 30)), 0o644)
	os.WriteFile(dir+"/a.pdf", mediatest.PDF(mediatest.PDFOptions{Pages: 2}), 0o644)
	os.WriteFile(dir+"/a.ipynb", nb, 0o644)
	for name, path := range map[string]string{"image": "a.png", "pdf": "a.pdf", "notebook": "a.ipynb"} {
		res := dispatch(t, d, "read_file", `{"path":"`+path+`"}`)
		if !res.Success {
			t.Fatalf("%s: %s", name, res.Error)
		}
		delete(res.Data, "durationMs")
		if diff := cmp.Diff(sorted(kinds[name].Result), slices.Sorted(maps.Keys(res.Data))); diff != "" {
			t.Errorf("%s: result fields (-contract +data):\n%s", name, diff)
		}
		var types []string
		for _, b := range res.Content {
			if !slices.Contains(types, b.Type) {
				types = append(types, b.Type)
			}
			if !slices.Contains(kinds[name].Content, b.Type) {
				t.Errorf("%s: a %s block, not in the contract", name, b.Type)
			}
		}
		if types[0] != protocol.ContentText {
			t.Errorf("%s: the first block is %s", name, types[0])
		}
	}
	lim := kinds["image"].Limits
	if lim.MaxEdge.Default != tools.DefaultImageMaxEdge || lim.MaxBytes.Default != tools.DefaultImageMaxBytes || lim.MaxPixels != 50_000_000 || kinds["pdf"].MaxPages != 20 {
		t.Errorf("limits %+v, maxPages %d", lim, kinds["pdf"].MaxPages)
	}
}

// TestContractTodo: todo_write's schema, limits and refusals are the
// contract's todoTools.
func TestContractTodo(t *testing.T) {
	var c struct {
		TodoTools struct {
			Tools  map[string]searchTool `json:"tools"`
			Limits struct {
				MaxItems, MaxContentCharacters, MaxIdCharacters, MaxInProgress int
			} `json:"limits"`
			Item struct {
				Statuses, Priorities []string
			} `json:"item"`
		} `json:"todoTools"`
	}
	if err := json.Unmarshal(sidecar.Contract, &c); err != nil {
		t.Fatal(err)
	}
	l := c.TodoTools.Limits
	if l.MaxItems != todo.MaxItems || l.MaxContentCharacters != todo.MaxContent || l.MaxIdCharacters != todo.MaxID || l.MaxInProgress != 1 {
		t.Errorf("limits %+v", l)
	}
	tw := tools.NewTodoWrite(todo.NewStore(), nil)
	want := c.TodoTools.Tools["todo_write"]
	var schema struct {
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	json.Unmarshal(tw.Descriptor().Parameters, &schema)
	if tw.Descriptor().Mode != want.Mode {
		t.Errorf("mode %s", tw.Descriptor().Mode)
	}
	if d := cmp.Diff(sorted(append(want.Input.Required, want.Input.Optional...)), slices.Sorted(maps.Keys(schema.Properties))); d != "" {
		t.Errorf("input (-contract +schema):\n%s", d)
	}
	for _, s := range c.TodoTools.Item.Statuses {
		if err := todo.Validate("", []protocol.TodoItem{{ID: "a", Content: "x", Status: s}}); err != nil {
			t.Errorf("status %s: %v", s, err)
		}
	}
}
