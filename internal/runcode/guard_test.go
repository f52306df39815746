package runcode

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The escape hatches are refused by name; the guard's message is the same
// for every spelling of an import.
func TestGuardRefusesImports(t *testing.T) {
	e := anyEnv(t)
	refused := []string{"os", "sys", "subprocess", "socket", "ctypes", "importlib", "io", "builtins", "pathlib", "shutil",
		"pickle", "marshal", "types", "gc", "inspect", "signal", "multiprocessing", "urllib", "urllib.request", "http.client",
		"asyncio", "_thread", "posix", "code", "runpy", "pty", "fcntl", "mmap", "select", "tempfile", "os.path", "xml.etree.ElementTree"}
	var code strings.Builder
	code.WriteString("out = []\n")
	for _, m := range refused {
		fmt.Fprintf(&code, "try:\n    import %s\n    out.append('imported')\nexcept ImportError as e:\n    out.append(str(e))\n", m)
	}
	code.WriteString(`for spelling in ("from os import path", "from urllib import request", "from . import x", "__import__('os')"):
    try:
        (lambda: None)() if False else None
        if spelling.startswith("__import__"):
            __import__("os")
        elif spelling.startswith("from os"):
            from os import path
        elif spelling.startswith("from urllib"):
            from urllib import request
        else:
            from . import x
        out.append("imported")
    except ImportError as e:
        out.append(str(e))
return out`)
	var want []any
	for _, m := range refused {
		want = append(want, "import '"+m+"' is not allowed in run_code")
	}
	want = append(want, "import 'os' is not allowed in run_code", "import 'urllib' is not allowed in run_code",
		"relative imports are not allowed in run_code", "import 'os' is not allowed in run_code")
	if diff := cmp.Diff(want, value(t, e.run(t, code.String(), nil))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// Allowed modules work, but what they imported themselves is hidden:
// random._os, typing.sys, fnmatch.os and the like are not a way to os.
func TestGuardModuleViewsHideTheirImports(t *testing.T) {
	e := anyEnv(t)
	got := value(t, e.run(t, `import random, typing, fnmatch, shlex, collections, json, threading, contextlib
out = []
for mod, attr in ((random, "_os"), (typing, "sys"), (fnmatch, "os"), (shlex, "os"), (collections, "_sys"),
                  (threading, "_os"), (contextlib, "os"), (json, "__file__"), (json, "__builtins__")):
    try:
        getattr(mod, attr)
        out.append(attr + " reachable")
    except AttributeError:
        out.append("hidden")
out.append(random.Random(1).randint(1, 10) > 0)
out.append("randint" in dir(random) and "_os" not in dir(random))
out.append(type(collections.abc).__name__ == "module")
out.append(json.__name__)
out.append(json.__loader__ is None and json.__spec__ is None)
return out`, nil))
	want := []any{"hidden", "hidden", "hidden", "hidden", "hidden", "hidden", "hidden", "hidden", "hidden", true, true, true, "json", true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestGuardRemovesBuiltins(t *testing.T) {
	e := anyEnv(t)
	for _, name := range []string{"open", "eval", "exec", "compile", "input", "breakpoint", "help", "exit", "quit"} {
		got := failure(t, e.run(t, name+"('x')", nil))
		if want := fmt.Sprintf("NameError: name '%s' is not defined", name); got.Error != want {
			t.Errorf("%s: %q, want %q", name, got.Error, want)
		}
	}
	// What programs need stays.
	if v := value(t, e.run(t, "class P:\n    pass\nreturn [len('ab'), sorted([2, 1]), isinstance(P(), P), repr(tools)[:7]]", nil)); !cmp.Equal(v,
		[]any{2.0, []any{1.0, 2.0}, true, "<tools:"}) {
		t.Errorf("builtins a program needs: %v", v)
	}
}
