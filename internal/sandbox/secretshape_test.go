package sandbox

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// fake returns prefix followed by n characters cycling through alphabet:
// the shape of a token, never a real one.
func fake(prefix string, n int, alphabet string) string {
	var b strings.Builder
	b.WriteString(prefix)
	for i := range n {
		b.WriteByte(alphabet[(i*7+3)%len(alphabet)])
	}
	return b.String()
}

const (
	alnum   = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b64url  = alnum + "-_"
	upperNo = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
)

// jwtSample is a JWT's shape: {"alg":"HS256","typ":"JWT"}.{"sub":"1234567890"}.signature.
const jwtSample = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"

// secretValues are values of a well-known secret shape; each hides under
// an innocent name in the attack test.
var secretValues = map[string]string{
	"github classic":       fake("ghp_", 36, alnum),
	"github oauth":         fake("gho_", 36, alnum),
	"github user":          fake("ghu_", 36, alnum),
	"github server":        fake("ghs_", 36, alnum),
	"github fine-grained":  fake("github_pat_", 82, alnum+"_"),
	"gitlab":               fake("glpat-", 20, b64url),
	"slack bot":            "xoxb-" + fake("", 12, "0123456789") + "-" + fake("", 24, alnum),
	"slack user":           "xoxp-" + fake("", 12, "0123456789") + "-" + fake("", 24, alnum),
	"openai legacy":        fake("sk-", 48, alnum),
	"openai project":       fake("sk-proj-", 100, b64url),
	"anthropic":            fake("sk-ant-api03-", 93, b64url) + "AA",
	"hugging face":         fake("hf_", 34, alnum),
	"npm":                  fake("npm_", 36, alnum),
	"aws access key id":    "AKIA" + fake("", 16, upperNo),
	"aws temporary key id": "ASIA" + fake("", 16, upperNo),
	"google api key":       fake("AIza", 35, b64url),
	"jwt":                  jwtSample,
	"jwt alg none":         "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxMjM0NTY3ODkwIn0.",
	"pem rsa":              "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
	"pem openssh":          "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n",
	"pem pkcs8 encrypted":  "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIFHDBOBgkqhkiG\n-----END ENCRYPTED PRIVATE KEY-----",
	"pgp private":          "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF0\n-----END PGP PRIVATE KEY BLOCK-----",
	"url with password":    "https://deploy:hunter2hunter2@git.example.com/repo.git",
	"url with token user":  "https://x-access-token@github.com/o/r.git",
	"bearer header":        "Authorization: Bearer " + fake("", 32, b64url),
	"token in a flag":      "--token=" + fake("ghp_", 36, alnum) + " --verbose",
	"token in a list":      "a,b," + fake("glpat-", 20, b64url) + ",c",
	"key in quotes":        `{"key":"` + fake("sk-", 48, alnum) + `"}`,
	"url in a list":        "https://pypi.org/simple https://u:p4ssw0rd-long@pypi.example.com/simple",
}

// ordinaryValues look nothing like a secret to a person and must stay.
var ordinaryValues = map[string]string{
	"PATH":             "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/home/u/.cargo/bin:/home/u/go/bin",
	"LS_COLORS":        "rs=0:di=01;34:ln=01;36:mh=00:pi=40;33:so=01;35:do=01;35:bd=40;33;01:cd=40;33;01:or=40;31;01:*.tar=01;31:*.tgz=01;31:*.jpg=01;35",
	"a path with sk-":  "/home/u/projects/desk-2023-archive/sk-learn-experiments-notebook-01",
	"sk- as a word":    "sk-learn-is-a-python-library-for-machine-learning",
	"sk- too short":    "sk-12345",
	"hf_ too short":    "hf_transfer_enabled_by_default",
	"a file name":      "/var/cache/ghp_notes_for_the_meeting.txt",
	"AKIA too short":   "AKIA1234",
	"AKIA too long":    "AKIA" + fake("", 20, upperNo),
	"AKIA lower":       "AKIA" + fake("", 16, "abcdefghijklmnop"),
	"eyJ not a JWT":    "eyJhbGciOiJIUzI1NiJ9 is a header",
	"a base64 blob":    "SGVsbG8sIHdvcmxkISBUaGlzIGlzIG5vdCBhIHNlY3JldC4=",
	"a plain URL":      "https://proxy.example.com:3128",
	"an email":         "someone@example.com",
	"a git remote":     "git@github.com:owner/repo.git",
	"a uuid":           "123e4567-e89b-12d3-a456-426614174000",
	"a sha256":         "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	"a public key":     "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG\n-----END PUBLIC KEY-----",
	"a certificate":    "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIE\n-----END CERTIFICATE-----",
	"a bearer word":    "the bearer of this note",
	"xoxb- no digits":  "xoxb-abcdefghijklmnopqrstu",
	"a prompt":         `\[\e[32m\]\u@\h\[\e[0m\]:\w\$ `,
	"a java opts":      "-Xmx2g -Dfile.encoding=UTF-8 -Djava.io.tmpdir=/tmp",
	"a node option":    "--max-old-space-size=4096 --enable-source-maps",
	"an XDG list":      "/usr/local/share:/usr/share:/var/lib/snapd/desktop",
	"a locale":         "en_US.UTF-8",
	"a short value":    "1",
	"github_pat short": "github_pat_",
}

func TestSecretShaped(t *testing.T) {
	for name, v := range secretValues {
		if !secretShaped(v) {
			t.Errorf("%s: secretShaped(%q) = false", name, v)
		}
	}
	for name, v := range ordinaryValues {
		if secretShaped(v) {
			t.Errorf("%s: secretShaped(%q) = true", name, v)
		}
	}
}

// The new name segments, glued suffixes, and the kubeconfig's content.
func TestIsCredentialNames(t *testing.T) {
	for _, name := range []string{"GPG_PASSPHRASE", "SIGNINGPASSPHRASE", "AUTH_JWT", "JWT", "GITLAB_BEARER",
		"AZURE_CREDENTIAL", "GCP_CREDENTIALS", "SSH_PRIVATE", "PRIVATE_REGISTRY", "KUBECONFIG_DATA", "KUBE_CONFIG_DATA",
		"KUBECONFIG_B64_DATA", "PRODUCT_LICENSE", "LICENSE"} {
		if !IsCredential(name, "x") {
			t.Errorf("IsCredential(%q) = false", name)
		}
	}
	for _, name := range []string{"KUBECONFIG", "XDG_DATA_DIRS", "DATA_DIR", "LICENSES_DIR", "PRIVATELY", "JWTOOL",
		"PASSPHRASES_DIR"} {
		if IsCredential(name, "/some/path") {
			t.Errorf("IsCredential(%q) = true", name)
		}
	}
}

// FuzzSecretShaped: any value is classified without a panic, and a known
// token stays found whatever surrounds it once set apart by a separator.
func FuzzSecretShaped(f *testing.F) {
	for _, v := range secretValues {
		f.Add(v, "", "")
	}
	for _, v := range ordinaryValues {
		f.Add(v, "PATH=", ";x")
	}
	f.Fuzz(func(t *testing.T, value, before, after string) {
		got := secretShaped(value)
		if got != secretShaped(value) {
			t.Fatal("not deterministic")
		}
		token := fake("ghp_", 36, alnum)
		if v := before + " " + token + " " + after; !secretShaped(v) {
			t.Fatalf("token hidden in %q", v)
		}
		if v := before + "\n" + jwtSample + "," + after; !secretShaped(v) {
			t.Fatalf("JWT hidden in %q", v)
		}
	})
}

// BenchmarkScrubEnviron is the scrub of a desktop session's environment
// (some 60 variables, LS_COLORS among them): it runs once per session and
// policy (Sandbox.Env caches it), never per call.
func BenchmarkScrubEnviron(b *testing.B) {
	environ := os.Environ()
	for name, v := range ordinaryValues {
		environ = append(environ, strings.ToUpper(strings.ReplaceAll(name, " ", "_"))+"="+v)
	}
	for len(environ) < 60 {
		environ = append(environ, fmt.Sprintf("XDG_VAR_%d=/usr/share/%d", len(environ), len(environ)))
	}
	b.ReportAllocs()
	for b.Loop() {
		EnvRules{}.Filter(EnvScrubbed, environ)
	}
}
