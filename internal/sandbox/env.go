package sandbox

import (
	"slices"
	"strings"
)

// EnvPolicy chooses which of the sidecar's environment variables a child
// inherits. The sidecar may hold keys (a search API key, a token the host
// passed down); a child is model-directed code, so it never sees them.
type EnvPolicy int

const (
	// EnvScrubbed is bash's policy (SPEC §4.2): everything except
	// credentials.
	EnvScrubbed EnvPolicy = iota
	// EnvAllowlist is run_code's policy (SPEC §4.6): only the variables an
	// interpreter needs, plus PYTHONDONTWRITEBYTECODE=1. An allowlist,
	// because Python code can reach os.environ whatever imports are blocked.
	EnvAllowlist
)

// credentialSuffixes mark a variable as a credential (case-insensitive).
// SPEC §4.2 names *_API_KEY, *_TOKEN and *_SECRET; the others are the same
// thing spelled differently (AWS_SECRET_ACCESS_KEY, DB_PASSWORD, …).
var credentialSuffixes = []string{
	"_API_KEY", "_APIKEY", "_TOKEN", "_SECRET", "_SECRET_KEY", "_ACCESS_KEY",
	"_PRIVATE_KEY", "_PASSWORD", "_PASSWD",
}

// credentialNames are credentials whatever their suffix.
var credentialNames = []string{"STEERABLE_WEB_SEARCH_API_KEY"}

// IsCredential reports whether the variable name looks like a credential.
func IsCredential(name string) bool {
	up := strings.ToUpper(name)
	if slices.Contains(credentialNames, up) {
		return true
	}
	for _, s := range credentialSuffixes {
		if strings.HasSuffix(up, s) {
			return true
		}
	}
	return false
}

// allowedNames and allowedPrefixes are run_code's allowlist.
var (
	allowedNames    = []string{"PATH", "HOME", "TMPDIR", "TEMP", "TMP", "LANG", "PYTHONPATH", "SYSTEMROOT", "SYSTEMDRIVE"}
	allowedPrefixes = []string{"LC_"}
)

// Filter returns the variables of environ ("K=V" entries) that policy lets
// through, in order; entries without "=" are dropped.
func (policy EnvPolicy) Filter(environ []string) []string {
	out := make([]string, 0, len(environ)+1)
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if ok && name != "" && policy.allows(name) {
			out = append(out, kv)
		}
	}
	if policy == EnvAllowlist {
		out = append(out, "PYTHONDONTWRITEBYTECODE=1")
	}
	return out
}

func (policy EnvPolicy) allows(name string) bool {
	if policy == EnvScrubbed {
		return !IsCredential(name)
	}
	if slices.Contains(allowedNames, name) {
		return true
	}
	for _, p := range allowedPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// setEnv returns environ with name set to value (replacing any entry).
func setEnv(environ []string, name, value string) []string {
	out := slices.DeleteFunc(slices.Clone(environ), func(kv string) bool {
		return strings.HasPrefix(kv, name+"=")
	})
	return append(out, name+"="+value)
}
