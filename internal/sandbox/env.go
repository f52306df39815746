package sandbox

import (
	"net/url"
	"slices"
	"strings"

	"steerable.dev/sidecar/internal/sandbox/launch"
)

// EnvPolicy chooses which of the sidecar's environment variables a child
// inherits. The sidecar may hold keys (a search API key, a token the host
// passed down); a child is model-directed code, so it never sees them.
type EnvPolicy int

const (
	// EnvScrubbed is the policy of bash and plugins (SPEC §4.2): the
	// sidecar's environment minus credentials, or with
	// STEERABLE_SANDBOX_ENV=core only the core set (EnvRules).
	EnvScrubbed EnvPolicy = iota
	// EnvAllowlist is run_code's policy (SPEC §4.6):
	// only the variables an interpreter needs, plus
	// PYTHONDONTWRITEBYTECODE=1. An allowlist, because Python code can
	// reach os.environ whatever imports are blocked. PYTHONPATH is not on
	// it: the interpreter's module path is never the sidecar's to pass on.
	EnvAllowlist
)

// EnvRules are the session's environment settings.
type EnvRules struct {
	// Core passes only coreNames (STEERABLE_SANDBOX_ENV=core) under
	// EnvScrubbed.
	Core bool
	// Pass names variables every child gets whatever the policy
	// (STEERABLE_SANDBOX_ENV_PASS), e.g. SSH_AUTH_SOCK for a user who also
	// allows UNIX sockets.
	Pass []string
}

// credentialWords mark a variable as a credential when one of the
// "_"-separated segments of its name (upper-cased) is one of them: GH_PAT
// and NPM_CONFIG__AUTH go, PATH and TOKENIZERS_PARALLELISM stay. LICENSE
// is a product key (a licence server's or a vendor's), PRIVATE a private
// key or a private registry's credential.
var credentialWords = []string{"KEY", "KEYS", "APIKEY", "SECRET", "SECRETS", "TOKEN", "TOKENS", "PASSWORD",
	"PASSWD", "PASS", "PWD", "PASSPHRASE", "CREDENTIAL", "CREDENTIALS", "AUTH", "PAT", "DSN", "WEBHOOK", "COOKIE",
	"COOKIES", "JWT", "BEARER", "PRIVATE", "LICENSE"}

// credentialSuffixes mark a segment that glues a word to another
// (PGPASSWORD, AUTHTOKEN, CLIENTSECRET, OPENAIAPIKEY, GPGPASSPHRASE).
var credentialSuffixes = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "APIKEY", "PASSPHRASE"}

// credentialNames are credentials whatever their segments: connection
// strings that carry passwords without a URL's userinfo.
var credentialNames = []string{"DATABASE_URL", "REDIS_URL", "MONGODB_URI", "MONGO_URL", "MONGO_URI",
	"AMQP_URL", "CELERY_BROKER_URL", "SQLALCHEMY_DATABASE_URI"}

// notCredentials are names that look like credentials and are not: the
// shell's working directories.
var notCredentials = []string{"PWD", "OLDPWD"}

// IsCredential reports whether the variable looks like a credential: a
// segment of its name (credentialWords, credentialSuffixes), a known name,
// a kubeconfig's content (KUBECONFIG_DATA, KUBE_CONFIG_DATA), or a value
// of a well-known secret shape whatever the name (secretshape.go: an
// issuer's token, a JWT, a PEM private key, a bearer credential, a URL
// with userinfo such as https://user:pw@host).
func IsCredential(name, value string) bool {
	up := strings.ToUpper(name)
	switch {
	case slices.Contains(notCredentials, up):
		return false
	case slices.Contains(credentialNames, up):
		return true
	}
	segs := strings.Split(up, "_")
	for _, seg := range segs {
		if slices.Contains(credentialWords, seg) {
			return true
		}
		for _, s := range credentialSuffixes {
			if len(seg) > len(s) && strings.HasSuffix(seg, s) {
				return true
			}
		}
	}
	if slices.Contains(segs, "DATA") && (slices.Contains(segs, "KUBECONFIG") || strings.Contains(up, "KUBE_CONFIG")) {
		return true
	}
	return secretShaped(value)
}

func hasUserinfo(value string) bool {
	if !strings.Contains(value, "://") || !strings.Contains(value, "@") {
		return false
	}
	u, err := url.Parse(strings.TrimSpace(value))
	return err == nil && u.User != nil && u.User.String() != ""
}

// coreNames and corePrefixes are STEERABLE_SANDBOX_ENV=core's set;
// allowedNames and allowedPrefixes are run_code's allowlist.
var (
	coreNames       = []string{"PATH", "HOME", "USER", "LANG", "TERM", "TMPDIR", "SHELL"}
	allowedNames    = []string{"PATH", "HOME", "TMPDIR", "TEMP", "TMP", "LANG", "SYSTEMROOT", "SYSTEMDRIVE"}
	localePrefixes  = []string{"LC_"}
	launcherPrivate = []string{launch.EscapeeMarker}
)

// Filter returns the variables of environ ("K=V" entries) that policy
// lets through, in order, and the names it dropped; entries without "="
// are dropped silently.
func (r EnvRules) Filter(policy EnvPolicy, environ []string) (kept, dropped []string) {
	kept = make([]string, 0, len(environ)+1)
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		switch {
		case !ok || name == "" || slices.Contains(launcherPrivate, name):
		case r.allows(policy, name, value):
			kept = append(kept, kv)
		default:
			dropped = append(dropped, name)
		}
	}
	if policy == EnvAllowlist {
		kept = append(kept, "PYTHONDONTWRITEBYTECODE=1")
	}
	return kept, dropped
}

func (r EnvRules) allows(policy EnvPolicy, name, value string) bool {
	switch {
	case policy == EnvAllowlist && strings.HasPrefix(name, "PYTHON"):
		// Not even through Pass: PYTHONPATH and its kin choose what the
		// runner imports (SPEC §4.6).
		return false
	case slices.Contains(r.Pass, name):
		return true
	case policy == EnvAllowlist:
		return slices.Contains(allowedNames, name) || hasAnyPrefix(name, localePrefixes)
	case r.Core:
		return slices.Contains(coreNames, name) || hasAnyPrefix(name, localePrefixes)
	}
	return !IsCredential(name, value)
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
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
