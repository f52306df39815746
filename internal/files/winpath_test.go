package files

import (
	"errors"
	"strings"
	"testing"
)

// The Windows resolver's lexical half, run on every platform: what a model
// on Windows may send, and what becomes of it in a workspace C:\repo.
func TestWinPath(t *testing.T) {
	const ws = `C:\repo`
	tests := []struct {
		in      string
		want    string // the absolute path; "" = refused
		within  bool   // confined: inside the workspace
		errPart string // part of the refusal
	}{
		{`src\main.go`, `C:\repo\src\main.go`, true, ""},
		{`src/main.go`, `C:\repo\src\main.go`, true, ""},
		{`.\src\.\a.txt`, `C:\repo\src\a.txt`, true, ""},
		{`C:\repo\x`, `C:\repo\x`, true, ""},
		{`c:\REPO\x`, `C:\REPO\x`, true, ""}, // NTFS compares without case
		{`C:/repo/x`, `C:\repo\x`, true, ""},
		{`C:\x`, `C:\x`, false, ""},
		{`D:\repo\x`, `D:\repo\x`, false, ""},
		{`C:\repository\x`, `C:\repository\x`, false, ""}, // a prefix of the name is not a parent
		{`\x`, `C:\x`, false, ""},                         // rooted on the workspace's drive
		{`/etc/passwd`, `C:\etc\passwd`, false, ""},
		{`..\..`, `C:\`, false, ""},
		{`..\repo\x`, `C:\repo\x`, true, ""},
		{`a\..\..\..\..\x`, `C:\x`, false, ""},
		{`\\server\share`, `\\server\share\`, false, ""},
		{`\\server\share\repo\x`, `\\server\share\repo\x`, false, ""},
		{`//server/share/x`, `\\server\share\x`, false, ""},
		{`\\server`, "", false, "server and a share"},
		{`\\?\C:\repo\x`, "", false, `device prefix \\?\`},
		{`\\?\UNC\server\share`, "", false, "device prefix"},
		{`\\.\PhysicalDrive0`, "", false, `device prefix \\.\`},
		{`//./pipe/x`, "", false, "device prefix"},
		{`\??\C:\x`, "", false, "device prefix"},
		{`C:x`, "", false, "current directory of drive C:"},
		{`file.txt:stream`, "", false, "alternate data stream"},
		{`file.txt::$DATA`, "", false, "alternate data stream"},
		{`sub\x:y\z`, "", false, "alternate data stream"},
		{`CON`, "", false, "reserved device name"},
		{`nul`, "", false, "reserved device name"},
		{`sub\NUL.txt`, "", false, "reserved device name"},
		{`COM1`, "", false, "reserved device name"},
		{`lpt9.log`, "", false, "reserved device name"},
		{"COM\u00b9", "", false, "reserved device name"},
		{`CONOUT$`, "", false, "reserved device name"},
		{`AUX .c`, "", false, "reserved device name"},
		{`COM10`, `C:\repo\COM10`, true, ""},
		{`CONFIG.SYS`, `C:\repo\CONFIG.SYS`, true, ""},
		{`console.log`, `C:\repo\console.log`, true, ""},
		{`a.txt.`, "", false, "which Windows drops"},
		{`dir \a`, "", false, "which Windows drops"},
		{`a<b`, "", false, "does not allow"},
		{`what?`, "", false, "does not allow"},
		{"a\x01b", "", false, "control characters"},
		{"\xff", "", false, "UTF-8"},
	}
	for _, tt := range tests {
		got, err := winPath(ws, tt.in)
		if tt.want == "" {
			if err == nil || !errors.Is(err, ErrInvalidPath) || !strings.Contains(err.Error(), tt.errPart) {
				t.Errorf("winPath(%q) = %q, %v; want a refusal saying %q", tt.in, got, err, tt.errPart)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("winPath(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			continue
		}
		if w := winWithin(ws, got); w != tt.within {
			t.Errorf("winWithin(%q, %q) = %v, want %v", ws, got, w, tt.within)
		}
	}
}

// A workspace on a share: its own UNC paths are inside, other shares and
// rooted paths are not.
func TestWinPathOnAShare(t *testing.T) {
	const ws = `\\nas\work\repo`
	for in, within := range map[string]bool{
		`a.txt`:                  true,
		`\\NAS\Work\repo\a.txt`:  true,
		`\\nas\other\repo\a.txt`: false,
		`\a.txt`:                 false, // \\nas\work\a.txt
		`..\..\x`:                false,
	} {
		got, err := winPath(ws, in)
		if err != nil || winWithin(ws, got) != within {
			t.Errorf("winPath(%q) = %q, %v; within = %v, want %v", in, got, err, winWithin(ws, got), within)
		}
	}
}

func TestWinWithin(t *testing.T) {
	for _, tt := range []struct {
		root, path string
		want       bool
	}{
		{`C:\`, `C:\x`, true},
		{`C:\`, `D:\x`, false},
		{`C:\a`, `C:\a`, true},
		{`C:\a`, `c:\A\b`, true},
		{`C:\a`, `C:\ab`, false},
		{`C:\a`, `C:\`, false},
	} {
		if got := winWithin(tt.root, tt.path); got != tt.want {
			t.Errorf("winWithin(%q, %q) = %v", tt.root, tt.path, got)
		}
	}
}

// FuzzWinPath: no input panics the Windows resolver, and what it accepts
// is absolute and clean, holds no device prefix, stream, reserved name or
// name Windows would alter, and resolves the same again (idempotent).
func FuzzWinPath(f *testing.F) {
	for _, s := range []string{`src\a.go`, `..\..`, `C:\x`, `\\?\C:\x`, `\\server\share`, `file.txt:s`, `CON`, `NUL.txt`, `a.`, `C:x`, `//./x`, `\`, `a/b\c`} {
		f.Add(s)
	}
	const ws = `C:\repo`
	f.Fuzz(func(t *testing.T, p string) {
		got, err := winPath(ws, p)
		if err != nil {
			return
		}
		vol, rest, verr := winVolume(got)
		if verr != nil || vol == "" || !strings.HasPrefix(rest, `\`) || winDevicePrefix(got) != "" {
			t.Fatalf("winPath(%q) = %q: not absolute", p, got)
		}
		for _, c := range strings.Split(strings.TrimPrefix(rest, `\`), `\`) {
			if c == "" && rest != `\` || c == "." || c == ".." || (c != "" && winCheckName(c) != nil) {
				t.Fatalf("winPath(%q) = %q: component %q is not clean", p, got, c)
			}
		}
		if again, err := winPath(ws, got); err != nil || again != got {
			t.Fatalf("winPath(%q) = %q, but again %q, %v", p, got, again, err)
		}
	})
}
