package config

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"

	"github.com/caarlos0/env/v11"
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
// and replaced by their defaults, so the Config is always usable.
func Load(environ map[string]string) (Config, []Problem) {
	vars := Vars()
	byField := map[string]Var{}
	byName := map[string]Var{}
	for _, v := range vars {
		byField[v.field] = v
		byName[v.Name] = v
	}
	e := map[string]string{}
	for k, v := range environ {
		e[k] = v
	}
	fillLowercaseProxies(e)

	var problems []Problem
	reject := func(v Var) {
		problems = append(problems, Problem{Var: v.Name, Value: e[v.Name], Allowed: v.Allowed(), Feature: v.Feature, Default: v.Default})
		delete(e, v.Name)
	}
	var cfg Config
	for range vars { // each round drops at least one bad variable
		cfg = Config{}
		err := env.ParseWithOptions(&cfg, env.Options{Environment: e})
		if err == nil {
			bad := outOfRange(cfg, vars)
			for _, v := range bad {
				reject(v)
			}
			if len(bad) == 0 {
				break
			}
			continue
		}
		var agg env.AggregateError
		if !errors.As(err, &agg) {
			panic(fmt.Sprintf("config: unexpected error from env: %v", err))
		}
		for _, ie := range agg.Errors {
			var pe env.ParseError
			if !errors.As(ie, &pe) {
				panic(fmt.Sprintf("config: unexpected error from env: %v", ie))
			}
			reject(byField[pe.Name])
		}
	}
	cfg.StateDir = stateDir(cfg.StateDir, e)
	return cfg, problems
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

// outOfRange returns the variables whose parsed value breaks their range or
// choices.
func outOfRange(cfg Config, vars []Var) []Var {
	var bad []Var
	for _, v := range vars {
		f := fieldByName(reflect.ValueOf(cfg), v.field)
		switch {
		case v.Min != nil && (f.Int() < *v.Min || f.Int() > *v.Max):
			bad = append(bad, v)
		case v.Choices != nil && !contains(v.Choices, f.String()):
			bad = append(bad, v)
		}
	}
	return bad
}

func fieldByName(v reflect.Value, name string) reflect.Value {
	if f := v.FieldByName(name); f.IsValid() {
		return f
	}
	return v.FieldByName("Web").FieldByName(name)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
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
