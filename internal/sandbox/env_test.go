package sandbox

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steerable.dev/sidecar/internal/sandbox/launch"
)

// plantedSecrets are 25 credentials as real environments spell them;
// suffix-only scrubbing lets 13 of them through.
var plantedSecrets = map[string]string{
	"OPENAI_API_KEY": "sk-1", "ANTHROPIC_API_KEY": "sk-2", "GITHUB_TOKEN": "gh-3", "AWS_SECRET_ACCESS_KEY": "aws-4",
	"AWS_SESSION_TOKEN": "aws-5", "CLIENT_SECRET": "cs-6", "DB_PASSWORD": "db-7", "STEERABLE_WEB_SEARCH_API_KEY": "tv-8",
	"API_KEY": "k-9", "SECRET": "s-10", "PGPASSWORD": "pg-11", "MYSQL_PWD": "my-12", "DATABASE_URL": "postgres://db/x?password=u-13",
	"OPENAI_KEY": "sk-14", "GH_PAT": "ghp-15", "NPM_CONFIG__AUTH": "npm-16", "SLACK_WEBHOOK_URL": "https://hooks.slack.com/s-17",
	"SENTRY_DSN": "https://k@sentry.io/18", "REDIS_URL": "redis://:pw-19@cache:6379", "HTTPS_PROXY": "http://user:pw-20@proxy:3128",
	"NPM_TOKEN": "npm-21", "HF_TOKEN": "hf-22", "GOOGLE_APPLICATION_CREDENTIALS": "/keys/g-23.json", "SMTP_PASS": "smtp-24",
	"SESSION_COOKIE": "c-25",
}

func TestIsCredential(t *testing.T) {
	for name, value := range plantedSecrets {
		if !IsCredential(name, value) {
			t.Errorf("IsCredential(%q, %q) = false", name, value)
		}
	}
	keep := map[string]string{
		"PATH": "/bin", "HOME": "/h", "PWD": "/w", "OLDPWD": "/v", "TOKENIZERS_PARALLELISM": "false", "KEYBOARD": "us",
		"SECRETARY": "x", "PASSPORT": "x", "LANG": "C", "HTTPS_PROXY": "http://proxy:3128", "EDITOR": "vi",
		"XDG_SESSION_PATH": "/p", "MONKEY": "x", "DISPLAY": ":0",
	}
	for name, value := range keep {
		if IsCredential(name, value) {
			t.Errorf("IsCredential(%q, %q) = true", name, value)
		}
	}
}

func TestEnvRulesFilter(t *testing.T) {
	environ := []string{"PATH=/bin", "HOME=/h", "OPENAI_API_KEY=k", "LC_ALL=C", "LANG=en", "EDITOR=vi",
		"PYTHONPATH=/p", "GITHUB_TOKEN=t", "noequals", "TMPDIR=/old", "SSH_AUTH_SOCK=/a", "TERM=xterm",
		launch.EscapeeMarker + "=forged"}
	tests := []struct {
		name          string
		rules         EnvRules
		policy        EnvPolicy
		kept, dropped []string
	}{
		{"inherit", EnvRules{}, EnvScrubbed,
			[]string{"PATH=/bin", "HOME=/h", "LC_ALL=C", "LANG=en", "EDITOR=vi", "PYTHONPATH=/p", "TMPDIR=/old", "TERM=xterm"},
			[]string{"OPENAI_API_KEY", "GITHUB_TOKEN", "SSH_AUTH_SOCK"}},
		{"inherit with a pass", EnvRules{Pass: []string{"SSH_AUTH_SOCK"}}, EnvScrubbed,
			[]string{"PATH=/bin", "HOME=/h", "LC_ALL=C", "LANG=en", "EDITOR=vi", "PYTHONPATH=/p", "TMPDIR=/old", "SSH_AUTH_SOCK=/a", "TERM=xterm"},
			[]string{"OPENAI_API_KEY", "GITHUB_TOKEN"}},
		{"core", EnvRules{Core: true, Pass: []string{"EDITOR"}}, EnvScrubbed,
			[]string{"PATH=/bin", "HOME=/h", "LC_ALL=C", "LANG=en", "EDITOR=vi", "TMPDIR=/old", "TERM=xterm"},
			[]string{"OPENAI_API_KEY", "PYTHONPATH", "GITHUB_TOKEN", "SSH_AUTH_SOCK"}},
		{"run_code", EnvRules{}, EnvAllowlist,
			[]string{"PATH=/bin", "HOME=/h", "LC_ALL=C", "LANG=en", "TMPDIR=/old", "PYTHONDONTWRITEBYTECODE=1"},
			[]string{"OPENAI_API_KEY", "EDITOR", "PYTHONPATH", "GITHUB_TOKEN", "SSH_AUTH_SOCK", "TERM"}},
		{"run_code never gets PYTHONPATH, even passed", EnvRules{Pass: []string{"PYTHONPATH", "EDITOR"}}, EnvAllowlist,
			[]string{"PATH=/bin", "HOME=/h", "LC_ALL=C", "LANG=en", "EDITOR=vi", "TMPDIR=/old", "PYTHONDONTWRITEBYTECODE=1"},
			[]string{"OPENAI_API_KEY", "PYTHONPATH", "GITHUB_TOKEN", "SSH_AUTH_SOCK", "TERM"}},
	}
	for _, tt := range tests {
		kept, dropped := tt.rules.Filter(tt.policy, environ)
		if diff := cmp.Diff(tt.kept, kept); diff != "" {
			t.Errorf("%s kept (-want +got):\n%s", tt.name, diff)
		}
		if diff := cmp.Diff(tt.dropped, dropped); diff != "" {
			t.Errorf("%s dropped (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestSandboxEnvPointsTempAtTheSessionDir(t *testing.T) {
	s := openSandbox(t, "none", false, "TMPDIR=/tmp", "OPENAI_API_KEY=k")
	got := s.Env(EnvAllowlist)
	want := []string{"PATH=" + getenv(got, "PATH"), "HOME=" + getenv(got, "HOME"), "PYTHONDONTWRITEBYTECODE=1",
		"TMPDIR=" + s.TempDir(), "TEMP=" + s.TempDir(), "TMP=" + s.TempDir()}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"OPENAI_API_KEY"}, s.Scrubbed()); diff != "" {
		t.Errorf("Scrubbed (-want +got):\n%s", diff)
	}
}

// The attack: a command reads the 25 planted keys from its environment,
// and the secrets of a well-known shape planted under innocent names
// (BUILD_ARG_0=ghp_…), under every backend; ordinary values stay, and
// _sandbox.envRemoved counts what went.
func TestPlantedSecretsAreScrubbed(t *testing.T) {
	var environ []string
	for name, value := range plantedSecrets {
		environ = append(environ, name+"="+value)
	}
	var shaped []string
	for _, value := range secretValues {
		shaped = append(shaped, value)
		environ = append(environ, fmt.Sprintf("BUILD_ARG_%d=%s", len(shaped), value))
	}
	var ordinary []string
	for _, value := range ordinaryValues {
		ordinary = append(ordinary, value)
		environ = append(environ, fmt.Sprintf("ORDINARY_%d=%s", len(ordinary), value))
	}
	for _, name := range append(confining, "none") {
		t.Run(name, func(t *testing.T) {
			s := openSandbox(t, name, false, append(environ, "KEEP_ME=yes")...)
			res := run(t, s, `printf '\0'; env -0`, RunOptions{MaxOutput: 1 << 20})
			for name, value := range plantedSecrets {
				if strings.Contains(res.Stdout, "\x00"+name+"="+value+"\x00") {
					t.Errorf("%s visible in the child's environment", name)
				}
			}
			for i, value := range shaped {
				if strings.Contains(res.Stdout, fmt.Sprintf("BUILD_ARG_%d=", i+1)) {
					t.Errorf("secret-shaped value visible in the child's environment: %.12s…", value)
				}
			}
			for i, value := range ordinary {
				if !strings.Contains(res.Stdout, fmt.Sprintf("ORDINARY_%d=%s\x00", i+1, value)) {
					t.Errorf("ordinary value dropped: %q", value)
				}
			}
			if !strings.Contains(res.Stdout, "KEEP_ME=yes") {
				t.Errorf("KEEP_ME missing:\n%s", res.Stdout)
			}
			if got, want := s.Info().EnvRemoved, len(plantedSecrets)+len(shaped); got != want {
				t.Errorf("Info().EnvRemoved = %d, want %d", got, want)
			}
			if m := s.Info().Map(); m["envRemoved"] != len(plantedSecrets)+len(shaped) {
				t.Errorf("_sandbox.envRemoved = %v", m["envRemoved"])
			}
		})
	}
}

func getenv(env []string, name string) string {
	for _, kv := range env {
		if len(kv) > len(name) && kv[:len(name)+1] == name+"=" {
			return kv[len(name)+1:]
		}
	}
	return ""
}
