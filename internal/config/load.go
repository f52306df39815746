package config

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"

	"github.com/caarlos0/env/v11"
)

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
// and replaced by their defaults, so the Config is always usable; what the
// caller does about them is its posture (Fatal). The problems come in
// declaration order, values that do not parse before values out of their
// range or choices, then the STEERABLE_ names that are no variable (by
// name).
func Load(environ map[string]string) (Config, []Problem) {
	e := maps.Clone(environ)
	if e == nil {
		e = map[string]string{}
	}
	fillLowercaseProxies(e)
	opts := env.Options{Environment: e, FuncMap: parsers(Home(e))}
	cfg, bad := parse(opts)
	bad = append(bad, outOfRange(&cfg, e, bad)...)
	if len(bad) > 0 {
		for _, p := range bad {
			delete(e, p.Var)
		}
		var again []Problem
		if cfg, again = parse(opts); len(again) > 0 { // once more, each bad variable taking its default
			panic(fmt.Sprintf("config: a default does not parse: %v", again))
		}
	}
	cfg.StateDir = stateDir(cfg.StateDir, e)
	cfg.MaxFrameBytes = frameLimit(cfg.MaxFrameBytes, cfg.FileMaxBytes)
	return cfg, append(bad, unknown(environ)...)
}

// parse runs the library over opts and turns its aggregated errors into
// Problems, one per variable whose value does not parse.
func parse(opts env.Options) (Config, []Problem) {
	var cfg Config
	err := env.ParseWithOptions(&cfg, opts)
	if err == nil {
		return cfg, nil
	}
	var agg env.AggregateError
	if !errors.As(err, &agg) {
		panic(fmt.Sprintf("config: unexpected error from env: %v", err))
	}
	byField := map[string]Var{}
	for _, v := range vars() {
		byField[v.field] = v
	}
	var problems []Problem
	for _, ie := range agg.Errors {
		var pe env.ParseError
		if !errors.As(ie, &pe) {
			panic(fmt.Sprintf("config: unexpected error from env: %v", ie)) // a tag or type without a parser
		}
		v := byField[pe.Name]
		p := v.problem(opts.Environment[v.Name])
		var r reason
		if errors.As(pe.Err, &r) {
			p.Reason = r.msg
		}
		problems = append(problems, p)
	}
	return cfg, problems
}

// outOfRange returns a Problem for each parsed value outside its range or
// choices; the variables in skip did not parse.
func outOfRange(cfg *Config, e map[string]string, skip []Problem) []Problem {
	root := reflect.ValueOf(cfg).Elem()
	var out []Problem
	for _, v := range vars() {
		if !v.inRange(root.FieldByIndex(v.index)) && !slices.ContainsFunc(skip, func(p Problem) bool { return p.Var == v.Name }) {
			out = append(out, v.problem(e[v.Name]))
		}
	}
	return out
}

// inRange reports whether f keeps to the variable's range or choices.
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
	return Problem{Var: v.Name, Value: value, Allowed: v.Allowed(), Feature: v.Feature, Default: v.Default, Security: v.Security}
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
