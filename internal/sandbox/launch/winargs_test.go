package launch

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMsysCommandLine(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{`C:\Program Files\Git\bin\bash.exe`, "-c", "echo hi"}, `"C:\Program Files\Git\bin\bash.exe" "-c" "echo hi"`},
		{[]string{`bash.exe`, "-c", `printf 'a\\n' "$HOME"`}, `"bash.exe" "-c" "printf 'a\\\\n' \"$HOME\""`},
		{[]string{`bash.exe`, "-c", `dir\`}, `"bash.exe" "-c" "dir\\"`},
		{[]string{`bash.exe`, ""}, `"bash.exe" ""`},
	}
	for _, tt := range tests {
		if got := msysCommandLine(tt.args); got != tt.want {
			t.Errorf("msysCommandLine(%q) =\n  %s\nwant\n  %s", tt.args, got, tt.want)
		}
	}
}

// The command line parses back into the same argv under the MSYS/Cygwin
// runtime's rules for a program started from Windows (msysParse, a model
// of winsup/cygwin/dcrt0.cc build_argv, quoted and globify): wildcards,
// braces, @files, single quotes and backslashes reach bash untouched.
func TestMsysCommandLineRoundTrip(t *testing.T) {
	hostile := []string{
		"echo hi", `C:\Users\me\repo`, `a\\b`, `trailing\`, `\\server\share`, `"quoted"`, `\"`, `""`,
		"*.go", "src/**/*.ts", "{a,b}", "[ab]?", "@response.txt", "'single'", `it's`, "~", "~/x",
		"tab\there", "line\nbreak", "ünïcödé ✓", "", " ", `$(rm -rf /) && "x" | y > z`,
	}
	for _, a := range hostile {
		args := []string{`C:\Program Files\Git\bin\bash.exe`, "-c", a}
		if diff := cmp.Diff(args, msysParse(msysCommandLine(args))); diff != "" {
			t.Errorf("%q (-want +got):\n%s", a, diff)
		}
	}
}

// msysParse splits a command line the way the MSYS/Cygwin runtime does
// for a process whose parent is not one of its own: the first word's
// quotes are stripped as they are; in later words a double-quoted run
// takes "\\" and "\"" as one character each, keeps any other backslash,
// and reads "" as a quote; an unquoted word would be globbed, so none may
// reach here unquoted.
func msysParse(cmdline string) []string {
	var out []string
	s := cmdline
	for len(s) > 0 {
		if s[0] == ' ' || s[0] == '\t' {
			s = s[1:]
			continue
		}
		var word strings.Builder
		for len(s) > 0 && s[0] != ' ' && s[0] != '\t' {
			if s[0] != '"' {
				if len(out) > 0 {
					return append(out, "UNQUOTED:"+s) // globbed by the runtime
				}
				word.WriteByte(s[0])
				s = s[1:]
				continue
			}
			s = s[1:]
			for len(s) > 0 {
				switch {
				case len(out) > 0 && s[0] == '\\' && len(s) > 1 && (s[1] == '\\' || s[1] == '"'):
					word.WriteByte(s[1])
					s = s[2:]
					continue
				case s[0] == '"' && len(s) > 1 && s[1] == '"' && len(out) > 0:
					word.WriteByte('"')
					s = s[2:]
					continue
				case s[0] == '"':
					s = s[1:]
				default:
					word.WriteByte(s[0])
					s = s[1:]
					continue
				}
				break
			}
		}
		out = append(out, word.String())
	}
	return out
}
