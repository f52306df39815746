package config

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Var describes one environment variable, read from Config's struct tags.
type Var struct {
	Name    string
	Default string
	Feature string
	Help    string
	Secret  bool
	// Security marks a security-relevant variable: an invalid value stops
	// the boot in every posture instead of falling back to its default.
	Security bool
	Min      *int64   // set for ranges (in the variable's unit)
	Max      *int64   //
	Choices  []string // set for enumerations

	field string       // the Go field's name (env.ParseError names it)
	typ   reflect.Type // the field's type
	index []int        // the field in Config (reflect.Value.FieldByIndex)
}

// Allowed describes the accepted values: "an integer in 1..4096", "one of
// "off", "host"", "1/0 or true/false", "any string".
func (v Var) Allowed() string {
	switch {
	case v.Min != nil:
		return fmt.Sprintf(rangeFormat(v.typ), *v.Min, *v.Max)
	case v.Choices != nil:
		var quoted []string
		for _, c := range v.Choices {
			quoted = append(quoted, fmt.Sprintf("%q", c))
		}
		return "one of " + strings.Join(quoted, ", ")
	}
	switch v.typ {
	case reflect.TypeFor[bool]():
		return "1/0 or true/false"
	case reflect.TypeFor[List]():
		return "a comma-separated list"
	case reflect.TypeFor[Path]():
		return "a path (~ and $HOME expand)"
	case reflect.TypeFor[PathList]():
		return "colon-separated absolute paths (~ and $HOME expand)"
	}
	return "any string"
}

// rangeFormat says what a range counts, and how else a value may be
// written, for each numeric type.
func rangeFormat(t reflect.Type) string {
	switch t {
	case reflect.TypeFor[Millis]():
		return "milliseconds in %d..%d, or a duration such as 30s"
	case reflect.TypeFor[Bytes]():
		return "bytes in %d..%d, or a size such as 64KiB or 16MiB"
	case reflect.TypeFor[MiB]():
		return "MiB in %d..%d, or a size such as 4GiB"
	}
	return "an integer in %d..%d"
}

// Meaning is the help line, with the consequence of an invalid value for
// a security-relevant variable: what --help and docs/configuration.md print.
func (v Var) Meaning() string {
	if v.Security {
		return v.Help + "; security-relevant: an invalid value stops the boot"
	}
	return v.Help
}

// Vars lists every variable in declaration order.
func Vars() []Var { return slices.Clone(vars()) }

// vars is the one reading of the struct tags, shared by every Load.
var vars = sync.OnceValue(func() []Var {
	var out []Var
	walk(reflect.TypeFor[Config](), nil, &out)
	fields := map[string]bool{}
	for _, v := range out {
		if fields[v.field] {
			// env.ParseError names a field by its Go name alone.
			panic("config: two variables in fields named " + v.field)
		}
		fields[v.field] = true
	}
	return out
})

func walk(t reflect.Type, index []int, out *[]Var) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		at := append(index[:len(index):len(index)], i)
		v := Var{field: f.Name, typ: f.Type, index: at}
		var rng string
		eachTag(string(f.Tag), func(key, value string) {
			switch key {
			case "env":
				v.Name, _, _ = strings.Cut(value, ",") // options follow the name
			case "envDefault":
				v.Default = value
			case "feature":
				v.Feature = value
			case "help":
				v.Help = value
			case "secret":
				v.Secret = value == "true"
			case "security":
				v.Security = value == "true"
			case "range":
				rng = value
			case "oneof":
				v.Choices = strings.Split(value, "|")
			}
		})
		if v.Name == "" {
			if f.Type.Kind() == reflect.Struct {
				walk(f.Type, at, out)
			}
			continue
		}
		if rng != "" {
			v.Min, v.Max = parseRange(rng)
		}
		*out = append(*out, v)
	}
}

func parseRange(s string) (lo, hi *int64) {
	a, b, ok := strings.Cut(s, "..")
	if !ok {
		panic("config: bad range tag " + s)
	}
	l, err1 := strconv.ParseInt(a, 10, 64)
	h, err2 := strconv.ParseInt(b, 10, 64)
	if err1 != nil || err2 != nil {
		panic("config: bad range tag " + s)
	}
	return &l, &h
}

// eachTag calls fn with every key:"value" pair of a struct tag, in one
// pass: reflect.StructTag.Get scans the tag from its start for every key,
// and the help texts make these tags long. The syntax is reflect's;
// parsing stops at the first malformed pair, as Get does.
func eachTag(tag string, fn func(key, value string)) {
	for tag != "" {
		tag = strings.TrimLeft(tag, " ")
		i := 0
		for i < len(tag) && tag[i] > ' ' && tag[i] != ':' && tag[i] != '"' && tag[i] != 0x7f {
			i++
		}
		if i == 0 || i+1 >= len(tag) || tag[i] != ':' || tag[i+1] != '"' {
			return
		}
		key := tag[:i]
		tag = tag[i+1:]
		end := closingQuote(tag)
		if end < 0 {
			return
		}
		value, ok := unquote(tag[:end+1])
		if !ok {
			return
		}
		tag = tag[end+1:]
		fn(key, value)
	}
}

// closingQuote returns the index of the quote that closes the string
// opening q (q[0] is '"'), or -1.
func closingQuote(q string) int {
	for i := 1; ; {
		j := strings.IndexByte(q[i:], '"')
		if j < 0 {
			return -1
		}
		i += j
		backslashes := 0
		for k := i - 1; k > 0 && q[k] == '\\'; k-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return i
		}
		i++
	}
}

// unquote is strconv.Unquote, skipped for the common value that it would
// return as it is (no escape or newline, valid UTF-8).
func unquote(q string) (string, bool) {
	if strings.IndexByte(q, '\\') < 0 && strings.IndexByte(q, '\n') < 0 && utf8.ValidString(q) {
		return q[1 : len(q)-1], true
	}
	v, err := strconv.Unquote(q)
	return v, err == nil
}

// Table lists every variable with its help, default and allowed values,
// for --help.
func Table() string {
	var b strings.Builder
	for _, v := range vars() {
		def := v.Default
		if def == "" {
			def = "unset"
		}
		fmt.Fprintf(&b, "  %s\n      %s\n      default: %s; allowed: %s\n", v.Name, v.Meaning(), def, v.Allowed())
	}
	return b.String()
}
