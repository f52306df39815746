package config

import (
	"fmt"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Problem is one invalid variable. Its Error names the variable, the value
// and what is allowed, so the fix is in the message.
type Problem struct {
	Var     string
	Value   string
	Allowed string
	Feature string
	Default string // what Load used instead ("" = unset)
}

func (p Problem) Error() string {
	return fmt.Sprintf("%s=%q is invalid: allowed %s", p.Var, p.Value, p.Allowed)
}

// Environ returns the process environment as a map, for Load.
func Environ() map[string]string {
	m := map[string]string{}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}

// Load parses environ into a Config. Invalid values are reported as Problems
// and replaced by their defaults, so the Config is always usable. The
// problems come in declaration order, values that do not parse before
// values out of their range or choices.
//
// Each variable is parsed straight from its Var (one reflection pass over
// the struct tags, in Vars): a generic env-to-struct library walked the tags
// again and took a parse round per bad value, a quarter of a millisecond of
// every start-up.
func Load(environ map[string]string) (Config, []Problem) {
	e := make(map[string]string, len(environ)+3)
	for k, v := range environ {
		e[k] = v
	}
	fillLowercaseProxies(e)
	var cfg Config
	root := reflect.ValueOf(&cfg).Elem()
	var unparsable, outside []Problem
	for _, v := range Vars() {
		f := root.FieldByIndex(v.index)
		raw := e[v.Name]
		switch err := v.set(f, raw); {
		case err != nil:
			unparsable = append(unparsable, v.problem(raw))
		case !v.inRange(f):
			outside = append(outside, v.problem(raw))
		default:
			continue
		}
		delete(e, v.Name)
		f.SetZero()
		if err := v.set(f, ""); err != nil { // the default
			panic(fmt.Sprintf("config: default of %s: %v", v.Name, err))
		}
	}
	cfg.StateDir = stateDir(cfg.StateDir, e)
	return cfg, append(unparsable, outside...)
}

// set parses value into f, or the default when value is empty (set or not,
// an empty variable means the default); with neither, f keeps its zero
// value.
func (v Var) set(f reflect.Value, value string) error {
	if value == "" {
		value = v.Default
	}
	if value == "" {
		return nil
	}
	switch v.kind {
	case reflect.String:
		f.SetString(value)
	case reflect.Bool:
		b, err := strconv.ParseBool(value)
		if err != nil {
			return err
		}
		f.SetBool(b)
	case reflect.Int, reflect.Int64:
		bits := 64
		if v.kind == reflect.Int {
			bits = 32 // the bound every int variable was parsed with
		}
		n, err := strconv.ParseInt(value, 10, bits)
		if err != nil {
			return err
		}
		f.SetInt(n)
	case reflect.Slice:
		f.Set(reflect.ValueOf(strings.Split(value, v.separator)))
	default:
		panic("config: no parser for " + v.Name + " of kind " + v.kind.String())
	}
	return nil
}

// inRange reports whether f, parsed, keeps to the variable's range or
// choices.
func (v Var) inRange(f reflect.Value) bool {
	switch {
	case v.Min != nil:
		return f.Int() >= *v.Min && f.Int() <= *v.Max
	case v.Choices != nil:
		return slices.Contains(v.Choices, f.String())
	}
	return true
}

func (v Var) problem(value string) Problem {
	return Problem{Var: v.Name, Value: value, Allowed: v.Allowed(), Feature: v.Feature, Default: v.Default}
}

// fillLowercaseProxies lets the lowercase proxy spellings stand in for the
// uppercase ones, as curl and Go's net/http do.
func fillLowercaseProxies(e map[string]string) {
	for _, name := range []string{"HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY"} {
		if e[name] == "" && e[strings.ToLower(name)] != "" {
			e[name] = e[strings.ToLower(name)]
		}
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
