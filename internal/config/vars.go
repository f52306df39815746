package config

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// Var describes one environment variable, read from Config's struct tags.
type Var struct {
	Name    string
	Default string
	Feature string
	Help    string
	Secret  bool
	Min     *int64   // set for integer ranges
	Max     *int64   //
	Choices []string // set for enumerations

	field     string
	kind      reflect.Kind
	index     []int  // the field in Config (reflect.Value.FieldByIndex)
	separator string // between the items of a list (envSeparator, else ",")
}

// Allowed describes the accepted values: "1..4096", "one of off, host",
// "true or false (1/0)", "any string".
func (v Var) Allowed() string {
	switch {
	case v.Min != nil:
		return fmt.Sprintf("an integer in %d..%d", *v.Min, *v.Max)
	case v.Choices != nil:
		var quoted []string
		for _, c := range v.Choices {
			quoted = append(quoted, fmt.Sprintf("%q", c))
		}
		return "one of " + strings.Join(quoted, ", ")
	case v.kind == reflect.Bool:
		return "1/0 or true/false"
	case v.kind == reflect.Slice:
		return "a comma-separated list"
	}
	return "any string"
}

// Vars lists every variable in declaration order.
func Vars() []Var {
	var out []Var
	walk(reflect.TypeOf(Config{}), nil, &out)
	return out
}

func walk(t reflect.Type, index []int, out *[]Var) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		at := append(index[:len(index):len(index)], i)
		v := Var{field: f.Name, kind: f.Type.Kind(), index: at, separator: ","}
		var rng string
		eachTag(string(f.Tag), func(key, value string) {
			switch key {
			case "env":
				v.Name = value
			case "envDefault":
				v.Default = value
			case "envSeparator":
				v.separator = value
			case "feature":
				v.Feature = value
			case "help":
				v.Help = value
			case "secret":
				v.Secret = value == "true"
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

// eachTag calls fn with every key:"value" pair of a struct tag, in one
// pass: reflect.StructTag.Get scans the tag from its start for every key,
// and the help texts make these tags long (reading the variables key by
// key cost 0.1 ms of every start-up). The syntax is reflect's; parsing
// stops at the first malformed pair, as Get does.
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
		i = 1
		for i < len(tag) && tag[i] != '"' {
			if tag[i] == '\\' {
				i++
			}
			i++
		}
		if i >= len(tag) {
			return
		}
		value, err := strconv.Unquote(tag[:i+1])
		if err != nil {
			return
		}
		tag = tag[i+1:]
		fn(key, value)
	}
}

// Table lists every variable with its help, default and allowed values,
// for --help.
func Table() string {
	var b strings.Builder
	for _, v := range Vars() {
		def := v.Default
		if def == "" {
			def = "unset"
		}
		fmt.Fprintf(&b, "  %s\n      %s\n      default: %s; allowed: %s\n", v.Name, v.Help, def, v.Allowed())
	}
	return b.String()
}
