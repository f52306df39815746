package config

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseMillis(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		problem string // substring of the reason, "" for none
	}{
		{"5000", 5000, ""},
		{"0", 0, ""},
		{"-5", -5, ""}, // parses; the range refuses it
		{"30s", 30000, ""},
		{"10m", 600000, ""},
		{"1h30m", 5400000, ""},
		{"1.5s", 1500, ""},
		{"250ms", 250, ""},
		{"-2s", -2000, ""},
		{"500us", 0, "not a whole number of milliseconds"},
		{"1.5ms", 0, "not a whole number of milliseconds"},
		{"5 s", 0, "neither milliseconds nor a duration"},
		{"five", 0, "neither milliseconds nor a duration"},
		{" 5000", 0, "neither milliseconds nor a duration"},
		{"99999999999h", 0, "neither milliseconds nor a duration"},
	}
	for _, tt := range tests {
		got, err := parseMillis(tt.in)
		if !matches(err, tt.problem) || (err == nil && got != tt.want) {
			t.Errorf("parseMillis(%q) = %d, %v; want %d, %q", tt.in, got, err, tt.want, tt.problem)
		}
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in      string
		base    int64
		want    int64
		problem string
	}{
		{"1048576", 1, 1 << 20, ""},
		{"0", 1, 0, ""},
		{"-1", 1, -1, ""}, // parses; the range refuses it
		{"64KiB", 1, 64 << 10, ""},
		{"16MiB", 1, 16 << 20, ""},
		{"16mib", 1, 16 << 20, ""},
		{"1GiB", 1, 1 << 30, ""},
		{"1GB", 1, 1e9, ""},
		{"2TB", 1, 2e12, ""},
		{"512B", 1, 512, ""},
		{"4096", 1 << 20, 4096, ""}, // a bare number is already MiB
		{"4GiB", 1 << 20, 4096, ""},
		{"512MiB", 1 << 20, 512, ""},
		{"4GB", 1 << 20, 0, "not a whole number of MiB"},
		{"1000KiB", 1 << 20, 0, "not a whole number of MiB"},
		{"16M", 1, 0, `unknown unit "M"`},
		{"16 MiB", 1, 0, `unknown unit " MiB"`},
		{"1.5GiB", 1, 0, `unknown unit ".5GiB"`},
		{"MiB", 1, 0, "does not start with an integer"},
		{"", 1, 0, "does not start with an integer"},
		{"9999999999TiB", 1, 0, "too large"},
		{"99999999999999999999", 1, 0, "does not start with an integer"},
	}
	for _, tt := range tests {
		got, err := parseSize(tt.in, tt.base)
		if !matches(err, tt.problem) || (err == nil && got != tt.want) {
			t.Errorf("parseSize(%q, %d) = %d, %v; want %d, %q", tt.in, tt.base, got, err, tt.want, tt.problem)
		}
	}
}

func TestParseList(t *testing.T) {
	for in, want := range map[string][]string{
		"a,b":             {"a", "b"},
		" a , b ,":        {"a", "b"},
		",,":              {},
		"\texample.com, ": {"example.com"},
		"-":               {"-"},
	} {
		if diff := cmp.Diff(want, parseList(in)); diff != "" {
			t.Errorf("parseList(%q) (-want +got):\n%s", in, diff)
		}
	}
}

func TestParsePathList(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		problem string
	}{
		{"/a:/b", []string{"/a", "/b"}, ""},
		{" /a : ~/.secrets :: $HOME/x:${HOME}/y/../z ", []string{"/a", "/home/u/.secrets", "/home/u/x", "/home/u/z"}, ""},
		{"~", []string{"/home/u"}, ""},
		{"", nil, ""},
		{"/a:relative", nil, `entry "relative" is not absolute`},
		{"~user/x", nil, `entry "~user/x" is not absolute`},
		{"$HOMEDIR/x", nil, `entry "$HOMEDIR/x" is not absolute`},
		{"/a\x00b", nil, "NUL"},
		{"/etc/ssh/ssh_host_*_key:~/.cache/*/token", nil, "wildcard above its last component"},
		{"/etc/ssh/ssh_host_*_key:/root/.[a-z]*_history", []string{"/etc/ssh/ssh_host_*_key", "/root/.[a-z]*_history"}, ""},
		{"/x/[a-", nil, "not a valid wildcard"},
	}
	for _, tt := range tests {
		got, err := parsePathList(tt.in, "/home/u")
		if !matches(err, tt.problem) {
			t.Errorf("parsePathList(%q) error %v, want %q", tt.in, err, tt.problem)
		}
		if diff := cmp.Diff(tt.want, got); err == nil && diff != "" {
			t.Errorf("parsePathList(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

// TestRangesSpeakTheVariablesUnit: Allowed says what a range counts and
// how else a value may be written, and every such spelling loads.
func TestRangesSpeakTheVariablesUnit(t *testing.T) {
	allowed := map[string]string{}
	for _, v := range Vars() {
		allowed[v.Name] = v.Allowed()
	}
	for name, want := range map[string]string{
		"STEERABLE_MAX_INFLIGHT":          "an integer in 1..4096",
		"STEERABLE_SHUTDOWN_GRACE_MS":     "milliseconds in 0..600000, or a duration such as 30s",
		"STEERABLE_FILE_MAX_BYTES":        "bytes in 1024..1073741824, or a size such as 64KiB or 16MiB",
		"STEERABLE_SANDBOX_MAX_MEMORY_MB": "MiB in 0..1048576, or a size such as 4GiB",
		"STEERABLE_SANDBOX_DENY_READ":     "colon-separated absolute paths (~ and $HOME expand)",
		"STEERABLE_PLUGINS_CONFIG":        "a path (~ and $HOME expand)",
		"STEERABLE_SEARCH_IGNORE":         "a comma-separated list",
	} {
		if allowed[name] != want {
			t.Errorf("%s allows %q, want %q", name, allowed[name], want)
		}
	}
	cfg, problems := Load(map[string]string{"STEERABLE_SHUTDOWN_GRACE_MS": "30s", "STEERABLE_FILE_MAX_BYTES": "16MiB", "STEERABLE_SANDBOX_MAX_MEMORY_MB": "4GiB"})
	if len(problems) > 0 || cfg.ShutdownGraceMs.Duration() != 30*time.Second || cfg.FileMaxBytes != 16<<20 || cfg.SandboxMaxMemoryMB != 4096 {
		t.Errorf("cfg = %+v, problems %v", cfg, problems)
	}
}

// TestReasonInProblem: a custom parser's reason reaches the message.
func TestReasonInProblem(t *testing.T) {
	_, problems := Load(map[string]string{"STEERABLE_FILE_MAX_BYTES": "16M"})
	want := `STEERABLE_FILE_MAX_BYTES="16M" is invalid: unknown unit "M"; use B, KB, MB, GB, TB, KiB, MiB, GiB or TiB; allowed bytes in 1024..1073741824, or a size such as 64KiB or 16MiB`
	if len(problems) != 1 || problems[0].Error() != want {
		t.Errorf("problems = %v\nwant %s", problems, want)
	}
}

func matches(err error, problem string) bool {
	if problem == "" {
		return err == nil
	}
	return err != nil && strings.Contains(err.Error(), problem)
}

// FuzzParseSize: any string either parses to a value that the same
// integer with its unit gives back, or is refused with a reason; it never
// panics or overflows.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"1048576", "16MiB", "4GB", "-1KiB", "9223372036854775807", "9999999999TiB", "1.5GiB", "", "+3kb"} {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, mib bool) {
		base := int64(1)
		if mib {
			base = 1 << 20
		}
		n, err := parseSize(s, base)
		if err != nil {
			if _, ok := err.(reason); !ok {
				t.Fatalf("parseSize(%q): %v is not a reason", s, err)
			}
			return
		}
		digits := strings.TrimLeft(s, "+-0123456789")
		whole, _ := strconv.ParseInt(s[:len(s)-len(digits)], 10, 64)
		if mult := sizeUnits[strings.ToLower(digits)]; digits != "" && n*base != whole*mult {
			t.Fatalf("parseSize(%q) = %d × %d, want %d × %d", s, n, base, whole, mult)
		}
	})
}

// FuzzParseMillis: a value parses to whole milliseconds or is refused
// with a reason.
func FuzzParseMillis(f *testing.F) {
	for _, s := range []string{"5000", "30s", "1h30m", "500us", "-2s", "1e3", "9223372036854775807ms"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := parseMillis(s)
		if err != nil {
			if _, ok := err.(reason); !ok {
				t.Fatalf("parseMillis(%q): %v is not a reason", s, err)
			}
			return
		}
		if d, err := time.ParseDuration(s); err == nil && d.Milliseconds() != n {
			t.Fatalf("parseMillis(%q) = %d, the duration is %v", s, n, d)
		}
	})
}

// FuzzParsePathList: every entry returned is absolute and clean of NULs;
// anything else is refused with a reason.
func FuzzParsePathList(f *testing.F) {
	for _, s := range []string{"/a:/b", "~/.ssh:$HOME/x", "relative", "~user", "::", "${HOME}", "/a\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		paths, err := parsePathList(s, "/home/u")
		if err != nil {
			if _, ok := err.(reason); !ok {
				t.Fatalf("parsePathList(%q): %v is not a reason", s, err)
			}
			return
		}
		for _, p := range paths {
			if !filepath.IsAbs(p) || strings.ContainsAny(p, "\x00:") || p != filepath.Clean(p) || strings.ContainsAny(filepath.Dir(p), "*?[") {
				t.Fatalf("parsePathList(%q) gave %q", s, p)
			}
		}
	})
}
