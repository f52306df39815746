package config

import (
	"fmt"
	"strings"
)

// Problem is one invalid variable, or one STEERABLE_ name that is no
// variable. Its Error names the variable, the value and what is allowed,
// so the fix is in the message.
type Problem struct {
	Var     string
	Value   string // "" for an unknown name: its value may be a secret
	Allowed string
	Feature string
	Default string // what Load used instead ("" = unset)
	// Reason is what the parser found wrong, when it says more than
	// Allowed ("entry \"x\" is not absolute").
	Reason string
	// Security: the variable is security-relevant, so the value must
	// not be replaced by its default (Fatal).
	Security bool
	// Unknown: Var is no variable of the sidecar, probably a typo;
	// Suggestion is the nearest real name ("" when none is near).
	Unknown    bool
	Suggestion string
}

func (p Problem) Error() string {
	switch {
	case p.Unknown && p.Suggestion != "":
		return fmt.Sprintf("%s is not a steerable-sidecar variable; did you mean %s?", p.Var, p.Suggestion)
	case p.Unknown:
		return fmt.Sprintf("%s is not a steerable-sidecar variable (steerable-sidecar --help lists them)", p.Var)
	case p.Reason != "":
		return fmt.Sprintf("%s=%q is invalid: %s; allowed %s", p.Var, p.Value, p.Reason, p.Allowed)
	}
	return fmt.Sprintf("%s=%q is invalid: allowed %s", p.Var, p.Value, p.Allowed)
}

// Fatal returns the problems that stop the boot in a posture. strict (the
// `call` command, --strict-config) stops on every problem, unknown names
// included. Otherwise (serve, mcp) only security-relevant values stop it:
// each of them decides what a command or a tool may reach, and a typo
// falling back to its default (STEERABLE_SANDBOX=Landlock becoming auto)
// would run the session under a policy nobody chose. The other problems are
// the caller's to log and degrade (SPEC §4.3).
func Fatal(problems []Problem, strict bool) []Problem {
	var out []Problem
	for _, p := range problems {
		if strict || p.Security {
			out = append(out, p)
		}
	}
	return out
}

// FatalError is the boot error for fatal problems, one per line, or nil.
func FatalError(fatal []Problem) error {
	if len(fatal) == 0 {
		return nil
	}
	var msgs []string
	security := false
	for _, p := range fatal {
		msgs = append(msgs, p.Error())
		security = security || p.Security
	}
	head := "invalid configuration"
	if security {
		head += " (a security-relevant variable never falls back to its default)"
	}
	return fmt.Errorf("%s:\n  %s", head, strings.Join(msgs, "\n  "))
}
