package config

import (
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/caarlos0/env/v11"
)

// The value types of the variables whose spelling is richer than Go's
// literals. Each has a parser in parsers; the numeric ones keep the unit
// their variable's name says (a Millis is milliseconds, a Bytes bytes), so
// a plain integer means what it always meant.
type (
	// Millis is a duration in milliseconds: "5000", or a Go duration
	// such as "30s", "10m", "1h30m" (a whole number of milliseconds).
	Millis int64
	// Bytes is a size in bytes: "1048576", or an integer with a unit
	// such as "64KiB", "16MiB", "1GB".
	Bytes int64
	// MiB is a size in mebibytes: "4096", or an integer with a unit such
	// as "512MiB", "4GiB" (a whole number of MiB).
	MiB int64
	// List is a comma-separated list; spaces around the items and empty
	// items are dropped.
	List []string
	// Path is a file or directory path; a leading ~, $HOME or ${HOME}
	// is the home directory (paths.go).
	Path string
	// PathList is a colon-separated list of absolute paths, each
	// expanded as a Path; empty entries are dropped.
	PathList []string
)

// Duration is m as a time.Duration.
func (m Millis) Duration() time.Duration { return time.Duration(m) * time.Millisecond }

// parsers are the library's custom parsers for those types. The path
// parsers need the home directory of the environment being loaded.
func parsers(home string) map[reflect.Type]env.ParserFunc {
	return map[reflect.Type]env.ParserFunc{
		reflect.TypeFor[Millis](): func(s string) (any, error) { n, err := parseMillis(s); return Millis(n), err },
		reflect.TypeFor[Bytes]():  func(s string) (any, error) { n, err := parseSize(s, 1); return Bytes(n), err },
		reflect.TypeFor[MiB]():    func(s string) (any, error) { n, err := parseSize(s, 1<<20); return MiB(n), err },
		reflect.TypeFor[List]():   func(s string) (any, error) { return parseList(s), nil },
		reflect.TypeFor[Path]():   func(s string) (any, error) { p, err := expandHome(s, home); return Path(p), err },
		reflect.TypeFor[PathList](): func(s string) (any, error) {
			l, err := parsePathList(s, home)
			return PathList(l), err
		},
	}
}

// reason is a parser's explanation of a rejected value, kept in the
// Problem (strconv's own errors say nothing the allowed range does not).
type reason struct{ msg string }

func (r reason) Error() string { return r.msg }

func reasonf(format string, args ...any) error { return reason{fmt.Sprintf(format, args...)} }

// parseMillis reads a plain integer as milliseconds, anything else as a Go
// duration that must come to whole milliseconds.
func parseMillis(s string) (int64, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, reasonf("%q is neither milliseconds nor a duration such as 30s", s)
	}
	if d%time.Millisecond != 0 {
		return 0, reasonf("%q is not a whole number of milliseconds", s)
	}
	return d.Milliseconds(), nil
}

// sizeUnits are the units a size may carry, matched case-insensitively:
// SI (powers of 1000) and IEC (powers of 1024), as `ls` and `df` print them.
var sizeUnits = map[string]int64{
	"b":  1,
	"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
}

// parseSize reads an integer, with an optional unit, as a count of base
// (1 for bytes, 1<<20 for MiB): a bare integer is already in base, and a
// value with a unit must come to a whole number of base.
func parseSize(s string, base int64) (int64, error) {
	digits := strings.TrimLeft(s, "+-0123456789")
	number, unit := s[:len(s)-len(digits)], strings.ToLower(digits)
	n, err := strconv.ParseInt(number, 10, 64)
	if err != nil {
		return 0, reasonf("%q does not start with an integer", s)
	}
	if unit == "" {
		return n, nil
	}
	mult, ok := sizeUnits[unit]
	if !ok {
		return 0, reasonf("unknown unit %q; use B, KB, MB, GB, TB, KiB, MiB, GiB or TiB", digits)
	}
	if n > math.MaxInt64/mult || n < math.MinInt64/mult {
		return 0, reasonf("%q is too large", s)
	}
	if n*mult%base != 0 {
		return 0, reasonf("%q is not a whole number of %s", s, unitName(base))
	}
	return n * mult / base, nil
}

func unitName(base int64) string {
	if base == 1<<20 {
		return "MiB"
	}
	return "bytes"
}

// parseList splits on commas, trims each item and drops empty ones: a
// list pasted as "a, b," means a and b.
func parseList(s string) []string {
	out := []string{}
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// parsePathList splits on colons and expands each entry, which must then
// be absolute: a relative entry in a deny list would deny nothing the user
// meant.
func parsePathList(s, home string) ([]string, error) {
	var out []string
	for _, e := range strings.Split(s, ":") {
		if e = strings.TrimSpace(e); e == "" {
			continue
		}
		p, err := expandHome(e, home)
		if err != nil {
			return nil, err
		}
		if !filepath.IsAbs(p) {
			return nil, reasonf("entry %q is not absolute; write /abs/path or ~/path", e)
		}
		p = filepath.Clean(p)
		// The sandbox enumerates a wildcard's one directory; one above the
		// last component would need a walk of the tree.
		if strings.ContainsAny(filepath.Dir(p), "*?[") {
			return nil, reasonf("entry %q has a wildcard above its last component; write one path per directory", e)
		}
		if _, err := filepath.Match(filepath.Base(p), ""); err != nil {
			return nil, reasonf("entry %q is not a valid wildcard (%v)", e, err)
		}
		out = append(out, p)
	}
	return out, nil
}
