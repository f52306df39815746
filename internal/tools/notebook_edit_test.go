package tools

import (
	"os"
	"strings"
	"testing"
)

func sampleNotebook(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../notebook/testdata/sample.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReadNotebook: cells in order with ids, types, sources and outputs;
// the image output is an image block between text blocks; the traceback
// has no colour codes.
func TestReadNotebook(t *testing.T) {
	h := newFileHarness(t)
	h.write("nb.ipynb", sampleNotebook(t))
	r := h.ok("read_file", map[string]any{"path": "nb.ipynb"})
	text := r.Data["content"].(string)
	for _, want := range []string{
		"--- cell 1 of 4 · id intro · markdown ---\n# Title\nSome *text*.\n",
		"--- cell 2 of 4 · id load · code · [1] ---\nprint('hello')\nprint('world')\n--- output 1: stdout ---\nhello\nworld\n",
		"--- output 1: display_data ---\n<Figure size 640x480>\n[image/png output, 4×3, shown below]\n",
		"--- output 1: error ---\nZeroDivisionError: division by zero\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("view lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "\x1b[") || !strings.Contains(text, "----> 1 1/0") {
		t.Errorf("traceback: %s", text)
	}
	if len(r.Content) < 3 || r.Content[0].Type != "text" || r.Content[1].Type != "text" && r.Content[1].Type != "image" {
		t.Errorf("content %+v", r.Content)
	}
	h.refused("read_file", map[string]any{"path": "nb.ipynb", "pages": "1"}, "pages selects PDF pages")
	raw := h.ok("read_file", map[string]any{"path": "nb.ipynb", "offset": 1, "limit": 3})
	if raw.Data["content"] != "{\n \"cells\": [\n  {\n" {
		t.Errorf("offset/limit: %q", raw.Data["content"])
	}
}

// TestNotebookEditGates: notebook_edit goes through the read-before-write
// gates like the other writers.
func TestNotebookEditGates(t *testing.T) {
	h := newFileHarness(t)
	nb := sampleNotebook(t)
	h.write("nb.ipynb", nb)
	edit := map[string]any{"path": "nb.ipynb", "cellId": "load", "editMode": "replace", "newSource": "x = 1"}
	h.refused("notebook_edit", edit, "was never read in this session; read it first (read_file) and write with the version it returns as expectedVersion, or, from a trusted one-shot script, set STEERABLE_REQUIRE_READ_BEFORE_WRITE=0")
	v := h.read("nb.ipynb")
	h.write("nb.ipynb", nb+" ") // changed behind the session's back
	h.refused("notebook_edit", edit, "changed since it was read")
	stale := map[string]any{"path": "nb.ipynb", "cellId": "load", "editMode": "replace", "newSource": "x = 1", "expectedVersion": v}
	h.refused("notebook_edit", stale, "is no longer at expectedVersion")
	if h.content("nb.ipynb") != nb+" " {
		t.Fatal("a refused edit changed the file")
	}
	h.read("nb.ipynb")
	r := h.ok("notebook_edit", edit)
	if r.Data["cellId"] != "load" || r.Data["version"] != version(h.content("nb.ipynb")) {
		t.Errorf("%+v", r.Data)
	}
	h.ok("notebook_edit", map[string]any{"path": "nb.ipynb", "cellId": "load", "editMode": "delete"}) // the read state follows the edit
	h.refused("notebook_edit", map[string]any{"path": "nb.ipynb", "cellId": "load", "editMode": "delete"}, `no cell has id "load"; the notebook's cells are intro, plot, boom`)
}
