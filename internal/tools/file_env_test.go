package tools

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestBinaryHintNamesCommandsThatExist: the refusal of a binary file
// points at commands bash can run here (never file or xxd, which the
// Docker image lacks), and at python3 only where it is installed.
func TestBinaryHintNamesCommandsThatExist(t *testing.T) {
	for _, python := range []bool{true, false} {
		saved := hasPython3
		hasPython3 = func() bool { return python }
		h := newFileHarness(t)
		h.write("my file.bin", "\x00\x01\x02")
		res := h.refused("read_file", map[string]any{"path": "my file.bin"}, "not a text file")
		hasPython3 = saved
		for _, gone := range []string{"xxd", "file,", "(file"} {
			if strings.Contains(res.Error, gone) {
				t.Errorf("hint names %q: %s", gone, res.Error)
			}
		}
		for _, cmd := range []string{"od", "head"} {
			if _, err := exec.LookPath(cmd); err != nil || !strings.Contains(res.Error, cmd+" ") {
				t.Errorf("hint %q: %s is not named or not installed (%v)", res.Error, cmd, err)
			}
		}
		if !strings.Contains(res.Error, "'my file.bin'") {
			t.Errorf("hint does not quote the path for the shell: %s", res.Error)
		}
		if strings.Contains(res.Error, "python3") != python {
			t.Errorf("python3 present=%v, hint: %s", python, res.Error)
		}
	}
	_, err := exec.LookPath("python3")
	if hasPython3() != (err == nil) {
		t.Errorf("hasPython3() = %v, LookPath: %v", hasPython3(), err)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{"a/b.txt": "a/b.txt", "a b": "'a b'", "it's": `'it'\''s'`, "$x": "'$x'"} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestClipDiffEndsWithTheMarker: a diff over its bound is cut at a line
// start and ends with the one marker line (docs/protocol.md, "Clipped
// text") counting the bytes it stands for.
func TestClipDiffEndsWithTheMarker(t *testing.T) {
	line := "+" + strings.Repeat("x", 99) + "\n" // 101 bytes
	d := strings.Repeat(line, maxDiffChars/len(line)+10)
	got := clipDiff(d)
	kept := (maxDiffChars / len(line)) * len(line)
	want := d[:kept-1] + "\n...[" + strconv.Itoa(len(d)-kept) + " bytes truncated]...\n"
	if got != want {
		t.Errorf("clipDiff: got %d bytes ending %q, want %d ending %q", len(got), got[max(0, len(got)-60):], len(want), want[len(want)-60:])
	}
	if short := line + line; clipDiff(short) != short {
		t.Error("clipDiff changed a diff within its bound")
	}
}
