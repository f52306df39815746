package config

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// invalidSecurityValues holds, for every security-relevant variable, a
// value a user could plausibly write that is not valid.
var invalidSecurityValues = map[string]string{
	"STEERABLE_SANDBOX":                   "Landlock",
	"STEERABLE_SANDBOX_NETWORK":           "yes",
	"STEERABLE_SANDBOX_REQUIRE":           "on",
	"STEERABLE_SIDECAR_CONFINED":          "enabled",
	"STEERABLE_SANDBOX_UNIX_SOCKETS":      "y",
	"STEERABLE_SANDBOX_DENY_READ":         "~/.ssh:secrets",
	"STEERABLE_SANDBOX_ALLOW_READ":        ".npmrc",
	"STEERABLE_SANDBOX_ENV":               "Core",
	"STEERABLE_SANDBOX_MAX_PROCS":         "lots",
	"STEERABLE_SANDBOX_MAX_MEMORY_MB":     "4G",
	"STEERABLE_SANDBOX_TMP_MB":            "-1",
	"STEERABLE_BWRAP_PATH":                "$HOME/bin/bwrap", // HOME unset below
	"STEERABLE_BASH_PATH":                 "~/bin/bash",
	"STEERABLE_WORKSPACE_CONFINE":         "no",
	"STEERABLE_REQUIRE_READ_BEFORE_WRITE": "false ",
	"STEERABLE_APPROVALS":                 "Host",
}

// TestSecurityRelevantRefusedInEveryPosture: each security-relevant
// variable with an invalid value is fatal even in serve posture, and the
// message names the valid values.
func TestSecurityRelevantRefusedInEveryPosture(t *testing.T) {
	for _, v := range Vars() {
		if !v.Security {
			continue
		}
		value, ok := invalidSecurityValues[v.Name]
		if !ok {
			if v.Name != "STEERABLE_SANDBOX_ENV_PASS" { // any list of names parses
				t.Errorf("%s is security-relevant but has no invalid value in this test", v.Name)
			}
			continue
		}
		t.Run(v.Name, func(t *testing.T) {
			_, problems := Load(map[string]string{v.Name: value})
			fatal := Fatal(problems, false)
			if len(fatal) != 1 || fatal[0].Var != v.Name || !fatal[0].Security {
				t.Fatalf("fatal in serve posture = %v", fatal)
			}
			err := FatalError(fatal)
			if !strings.Contains(err.Error(), v.Allowed()) || !strings.Contains(err.Error(), "never falls back to its default") {
				t.Errorf("error %q does not name the valid values %q", err, v.Allowed())
			}
		})
	}
}

func TestSandboxTypoNamesTheValidValues(t *testing.T) {
	for _, value := range []string{"Landlock", "bwrap ", " none", "BWRAP", "sandbox", ""} {
		_, problems := Load(map[string]string{"STEERABLE_SANDBOX": value})
		err := FatalError(Fatal(problems, false))
		if value == "" {
			if err != nil {
				t.Errorf("empty STEERABLE_SANDBOX (the default): %v", err)
			}
			continue
		}
		want := `STEERABLE_SANDBOX="` + value + `" is invalid: allowed one of "auto", "bwrap", "landlock", "seatbelt", "none"`
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("STEERABLE_SANDBOX=%q: %v", value, err)
		}
	}
}

// TestOtherProblemsDegradeOutsideStrict: in serve posture a bad bound, a
// web value and an unknown name are not fatal; in strict posture all are.
func TestOtherProblemsDegradeOutsideStrict(t *testing.T) {
	_, problems := Load(map[string]string{
		"STEERABLE_MAX_INFLIGHT":            "0",
		"STEERABLE_WEB_FETCH_MAX_REDIRECTS": "99",
		"STEERABLE_WEB_ALLOWED_DOMAINS":     "x",
		"STEERABLE_SANBOX":                  "bwrap",
		"STEERABLE_BASH_MAX_TIMEOUT_MS":     "forever",
	})
	if fatal := Fatal(problems, false); len(fatal) != 0 {
		t.Errorf("serve posture: fatal %v", fatal)
	}
	var strict []string
	for _, p := range Fatal(problems, true) {
		strict = append(strict, p.Var)
	}
	want := []string{"STEERABLE_BASH_MAX_TIMEOUT_MS", "STEERABLE_MAX_INFLIGHT", "STEERABLE_WEB_FETCH_MAX_REDIRECTS", "STEERABLE_SANBOX"}
	if diff := cmp.Diff(want, strict); diff != "" {
		t.Errorf("strict posture (-want +got):\n%s", diff)
	}
	if err := FatalError(Fatal(problems, true)); strings.Contains(err.Error(), "security") {
		t.Errorf("no security-relevant problem, yet: %v", err)
	}
}

// TestSandboxVariablesAreClassified: every sandbox variable is
// security-relevant unless it only bounds output or time, so a new one
// cannot be added without deciding.
func TestSandboxVariablesAreClassified(t *testing.T) {
	notSecurity := []string{"STEERABLE_BASH_MAX_TIMEOUT_MS", "STEERABLE_BASH_MAX_OUTPUT_BYTES"}
	for _, v := range Vars() {
		if v.Feature == "sandbox" && v.Security == slices.Contains(notSecurity, v.Name) {
			t.Errorf("%s: security %v; sandbox variables are security-relevant except %v (add it there, with the reason, if it only bounds output or time)", v.Name, v.Security, notSecurity)
		}
		if v.Feature == "web" && v.Security {
			t.Errorf("%s: a web variable fails closed (the pair is not registered); it should not stop serve", v.Name)
		}
	}
}
