package winetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"steerable.dev/sidecar/internal/scripttest"
)

// The file-writing commands of the scripts:
//
//	writes N PATH KB          send N write_file calls of PATH at once, call i writing KB kilobytes of
//	                          the letter 'a'+i; print how many succeeded
//	one-of PATH N KB          PATH holds exactly one of those N contents, and no temp file is left beside it
//	kill-mid-write PATH FILE KB
//	                          send one write_file of PATH ('z's), kill the sidecar once the temp file
//	                          beside FILE (PATH as the test sees it) exists, or the reply came; print which
//	old-or-new PATH OLD KB    PATH holds OLD's content or the whole new one ('z's), nothing in between
//	bom-crlf FILE             rewrite FILE with a UTF-8 BOM and CRLF line ends

func writeContent(letter byte, kb int) string { return strings.Repeat(string(letter), kb<<10) }

func writeFrame(id, path, content string) string {
	args, _ := json.Marshal(map[string]any{"path": path, "content": content})
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"tool.invoke","params":{"name":"write_file","arguments":%s}}`, id, args)
}

func atoi(ts *testscript.TestScript, s string) int {
	n, err := strconv.Atoi(s)
	ts.Check(err)
	return n
}

func cmdWrites(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: writes N PATH KB")
	}
	n, kb := atoi(ts, args[0]), atoi(ts, args[2])
	s := sess(ts)
	for i := range n {
		s.Write(ts, writeFrame("w"+strconv.Itoa(i), args[1], writeContent(byte('a'+i), kb)))
	}
	ok := 0
	for i := range n {
		id := strconv.Quote("w" + strconv.Itoa(i))
		f := s.Next(ts, scripttest.ReplyTo(id))
		var res struct {
			Success bool   `json:"success"`
			Code    string `json:"code"`
		}
		json.Unmarshal(f["result"], &res)
		if res.Success {
			ok++
		} else if res.Code != "conflict" {
			ts.Fatalf("write %d failed other than by a conflict: %s", i, f["result"])
		}
	}
	fmt.Fprintf(ts.Stdout(), "%d of %d writes succeeded\n", ok, n)
}

// leftovers are the write temp files beside path.
func leftovers(ts *testscript.TestScript, path string) []string {
	m, _ := filepath.Glob(filepath.Join(filepath.Dir(ts.MkAbs(path)), "."+filepath.Base(path)+".*.tmp"))
	return m
}

func cmdOneOf(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: one-of PATH N KB")
	}
	n, kb := atoi(ts, args[1]), atoi(ts, args[2])
	got := ts.ReadFile(args[0])
	match := -1
	for i := range n {
		if got == writeContent(byte('a'+i), kb) {
			match = i
		}
	}
	if match < 0 {
		ts.Fatalf("%s holds none of the %d contents whole (%d bytes, starting %q)", args[0], n, len(got), got[:min(len(got), 16)])
	}
	if l := leftovers(ts, args[0]); len(l) > 0 {
		ts.Fatalf("temp files left beside %s: %q", args[0], l)
	}
	fmt.Fprintf(ts.Stdout(), "%s holds write %d whole\n", args[0], match)
}

func cmdKillMidWrite(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: kill-mid-write PATH FILE KB")
	}
	s := sess(ts)
	s.Write(ts, writeFrame("kill", args[0], writeContent('z', atoi(ts, args[2]))))
	deadline := time.Now().Add(waitTimeout)
	for {
		if len(leftovers(ts, args[1])) > 0 {
			ts.Check(s.Cmd.Process.Kill())
			fmt.Fprintln(ts.Stdout(), "killed during the write")
			return
		}
		if reply := s.Find(scripttest.ReplyTo(`"kill"`))["result"]; reply != nil {
			ts.Check(s.Cmd.Process.Kill())
			fmt.Fprintf(ts.Stdout(), "killed after the write: %.300s\n", reply)
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("the write neither started nor ended within %v", waitTimeout)
		}
		time.Sleep(time.Millisecond)
	}
}

func cmdOldOrNew(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: old-or-new PATH OLD KB")
	}
	got, old := ts.ReadFile(args[0]), ts.ReadFile(args[1])
	switch got {
	case old:
		fmt.Fprintln(ts.Stdout(), "old content")
	case writeContent('z', atoi(ts, args[2])):
		fmt.Fprintln(ts.Stdout(), "new content")
	default:
		ts.Fatalf("%s holds neither the old nor the new content (%d bytes, starting %q)", args[0], len(got), got[:min(len(got), 16)])
	}
}

func cmdBOMCRLF(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: bom-crlf FILE")
	}
	b := bytes.ReplaceAll([]byte(ts.ReadFile(args[0])), []byte("\n"), []byte("\r\n"))
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), append([]byte("\ufeff"), b...), 0o644))
}
