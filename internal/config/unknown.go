package config

import (
	"slices"
	"strings"
	"sync"

	"steerable.dev/sidecar/internal/spelling"
)

// prefix starts every variable of the sidecar but the proxy and Tavily
// ones; any other name with it is a mistake the user would never see,
// since the environment has no way to say "no such variable".
const prefix = "STEERABLE_"

// notConfiguration are names with the prefix that are no configuration
// and no typo: the sandbox marks every command it starts with
// STEERABLE_SANDBOX_CALL (a sidecar started by such a command inherits
// it), and STEERABLE_TEST_* are read by the test suites.
var notConfiguration = []string{"STEERABLE_SANDBOX_CALL"}

const testPrefix = "STEERABLE_TEST_"

// unknown returns a Problem for each name of environ that looks like a
// variable of the sidecar (the prefix in any case) but is none, with the
// nearest real name, sorted by name.
func unknown(environ map[string]string) []Problem {
	var out []Problem
	for name := range environ {
		if !hasPrefixFold(name, prefix) || hasPrefixFold(name, testPrefix) || slices.Contains(notConfiguration, name) || known()[name] {
			continue
		}
		out = append(out, Problem{Var: name, Unknown: true, Suggestion: nearest(strings.ToUpper(name))})
	}
	slices.SortFunc(out, func(a, b Problem) int { return strings.Compare(a.Var, b.Var) })
	return out
}

// known is the set of variable names.
var known = sync.OnceValue(func() map[string]bool {
	m := make(map[string]bool, len(vars()))
	for _, v := range vars() {
		m[v.Name] = true
	}
	return m
})

// nearest is the variable whose name is nearest to upper (an upper-cased
// name with the prefix), comparing what follows the prefix: the shared
// prefix would make every name look near every other. A name without the
// prefix (TAVILY_API_KEY) competes whole, so STEERABLE_TAVILY_API_KEY
// finds it.
func nearest(upper string) string {
	var stems []string
	for _, v := range vars() {
		stems = append(stems, strings.TrimPrefix(v.Name, prefix))
	}
	stem := spelling.Nearest(strings.TrimPrefix(upper, prefix), stems)
	if stem == "" {
		return ""
	}
	for _, v := range vars() {
		if strings.TrimPrefix(v.Name, prefix) == stem {
			return v.Name
		}
	}
	return ""
}

// hasPrefixFold is strings.HasPrefix ignoring case, without upper-casing
// every name of the environment.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
