package config

import (
	"fmt"
	"reflect"
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

	field string
	kind  reflect.Kind
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
	walk(reflect.TypeOf(Config{}), &out)
	return out
}

func walk(t reflect.Type, out *[]Var) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := f.Tag.Get("env")
		if name == "" {
			if f.Type.Kind() == reflect.Struct {
				walk(f.Type, out)
			}
			continue
		}
		v := Var{
			Name:    name,
			Default: f.Tag.Get("envDefault"),
			Feature: f.Tag.Get("feature"),
			Help:    f.Tag.Get("help"),
			Secret:  f.Tag.Get("secret") == "true",
			field:   f.Name,
			kind:    f.Type.Kind(),
		}
		if r := f.Tag.Get("range"); r != "" {
			v.Min, v.Max = parseRange(r)
		}
		if c, ok := f.Tag.Lookup("oneof"); ok {
			v.Choices = strings.Split(c, "|")
		}
		*out = append(*out, v)
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
