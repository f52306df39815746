package shellsession

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// strip runs the whole input through a fresh Stripper in chunks of the
// given sizes (the rest in one piece) and returns the text and markers.
func strip(in string, chunks ...int) (string, []Mark) {
	var s Stripper
	var out bytes.Buffer
	var marks []Mark
	p := []byte(in)
	feed := func(b []byte) {
		s.Write(b, func(v []byte) { out.Write(v) }, func(m Mark, at int) {
			if at < 0 || at >= len(b) {
				panic("marker index out of range")
			}
			marks = append(marks, m)
		})
	}
	for _, n := range chunks {
		n = min(n, len(p))
		feed(p[:n])
		p = p[n:]
	}
	feed(p)
	return out.String(), marks
}

func TestStripper(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		marks          []Mark
	}{
		{"plain text", "hello, wörld\tok\n", "hello, wörld\tok\n", nil},
		{"CRLF", "a\r\nb\r\n", "a\nb\n", nil},
		{"lone CR: a progress bar's redraws become lines", "10%\r50%\r100%\n", "10%\n50%\n100%\n", nil},
		{"CR CR LF", "a\r\r\nb", "a\n\nb", nil},
		{"SGR colours", "\x1b[1;31mred\x1b[0m plain", "red plain", nil},
		{"cursor moves and erase", "\x1b[2J\x1b[H\x1b[?25lx\x1b[K", "x", nil},
		{"private CSI with intermediates", "\x1b[>4;2m\x1b[?2004hok\x1b[1 q", "ok", nil},
		{"OSC title ended by BEL", "\x1b]0;my title\x07after", "after", nil},
		{"OSC hyperlink ended by ST", "\x1b]8;;https://x.test\x1b\\link\x1b]8;;\x1b\\", "link", nil},
		{"DCS and APC strings", "a\x1bPq#0;2;0;0;0\x1b\\b\x1b_app\x1b\\c", "abc", nil},
		{"two-byte escapes", "\x1b7\x1bMx\x1b8\x1b=\x1bc", "x", nil},
		{"charset designation", "\x1b(Bx\x1b)0y", "xy", nil},
		{"controls dropped", "a\x00b\x07c\x08d\x7fe\x0ef", "abcdef", nil},
		{"the prompt marker", "out\n\x1b]6973;P\x07", "out\n", []Mark{MarkPrompt}},
		{"the continuation marker by ST", "\x1b]6973;C\x1b\\", "", []Mark{MarkContinuation}},
		{"a longer OSC is no marker", "\x1b]6973;Px\x07\x1b]69\x07", "", nil},
		{"a DCS with the marker's text is no marker", "\x1bP6973;P\x1b\\", "", nil},
		{"CSI broken by a control: the control acts", "\x1b[12\nx", "\nx", nil},
		{"CSI broken by UTF-8: the text shows", "\x1b[1é", "é", nil},
		{"ESC then a new escape inside a string", "\x1b]0;t\x1b[31mx", "x", nil},
		{"CAN cancels a string", "\x1b]0;abc\x18shown", "shown", nil},
		{"an overlong CSI is abandoned", "\x1b[" + strings.Repeat("1", maxCSI+10) + "m", strings.Repeat("1", 10) + "m", nil},
		{"an unterminated OSC hides at most maxString bytes", "\x1b]0;" + strings.Repeat("x", maxString+5), strings.Repeat("x", 7), nil},
		{"ESC at the very end waits", "a\x1b", "a", nil},
		{"a line end abandons an OSC: binary output cannot hide the lines after it", "\x1b]\x93\xff\nafter-garbage\r\n\x1b]6973;P\x07", "\nafter-garbage\n", []Mark{MarkPrompt}},
		{"a line end abandons a DCS", "\x1bPq\r\ndone\n", "\ndone\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, marks := strip(tc.in)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.marks, marks); diff != "" {
				t.Errorf("marks (-want +got):\n%s", diff)
			}
			for i := 1; i < len(tc.in); i += 1 + len(tc.in)/200 { // split points give the same
				if g, m := strip(tc.in, i); g != got || !cmp.Equal(m, marks) {
					t.Fatalf("split at %d: %q %v, whole: %q %v", i, g, m, got, marks)
				}
			}
		})
	}
}

// FuzzStripper: whatever the bytes and however they are chunked, the text
// holds no escape or control but TAB and LF, does not depend on the
// chunking, and stripping it again changes nothing.
func FuzzStripper(f *testing.F) {
	for _, s := range []string{"plain\n", "\x1b[1;31mred\x1b[0m\r\n", "\x1b]6973;P\x07", "\x1b]0;t\x1b\\x",
		"\x1bP\x1b\\", "\x1b[?2004h$ \x1b[?2004l\r", "a\rb\r\nc", "\x1b(B\x1b7\x1b8", "\xff\xfe\x9b1m"} {
		f.Add([]byte(s), uint16(3))
	}
	f.Fuzz(func(t *testing.T, in []byte, split uint16) {
		whole, marks := strip(string(in))
		for i := 0; i < len(whole); i++ {
			if c := whole[i]; c < 0x20 && c != '\t' && c != '\n' || c == 0x7f {
				t.Fatalf("control byte %#x left in %q", c, whole)
			}
		}
		n := int(split) % (len(in) + 1)
		if got, m := strip(string(in), n, 1, 2, 7); got != whole || !cmp.Equal(m, marks) {
			t.Fatalf("chunked at %d: %q %v, whole: %q %v", n, got, m, whole, marks)
		}
		if again, _ := strip(whole); again != whole {
			t.Fatalf("not idempotent: %q then %q", whole, again)
		}
	})
}
