package sandbox

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestIsCredential(t *testing.T) {
	tests := map[string]bool{
		"OPENAI_API_KEY": true, "anthropic_api_key": true, "GITHUB_TOKEN": true, "AWS_SESSION_TOKEN": true,
		"CLIENT_SECRET": true, "AWS_SECRET_ACCESS_KEY": true, "DB_PASSWORD": true,
		"STEERABLE_WEB_SEARCH_API_KEY": true, "TAVILY_API_KEY": true,
		"PATH": false, "HOME": false, "TOKENIZERS_PARALLELISM": false, "KEYBOARD": false, "SECRETARY": false,
		"AWS_ACCESS_KEY_ID": false, "GOOGLE_APPLICATION_CREDENTIALS": false,
	}
	for name, want := range tests {
		if got := IsCredential(name); got != want {
			t.Errorf("IsCredential(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestEnvPolicies(t *testing.T) {
	environ := []string{"PATH=/bin", "HOME=/h", "OPENAI_API_KEY=k", "LC_ALL=C", "LANG=en", "EDITOR=vi",
		"PYTHONPATH=/p", "GITHUB_TOKEN=t", "noequals", "TMPDIR=/old"}
	tests := []struct {
		policy EnvPolicy
		want   []string
	}{
		{EnvScrubbed, []string{"PATH=/bin", "HOME=/h", "LC_ALL=C", "LANG=en", "EDITOR=vi", "PYTHONPATH=/p", "TMPDIR=/old"}},
		{EnvAllowlist, []string{"PATH=/bin", "HOME=/h", "LC_ALL=C", "LANG=en", "PYTHONPATH=/p", "TMPDIR=/old", "PYTHONDONTWRITEBYTECODE=1"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tt.policy.Filter(environ)); diff != "" {
			t.Errorf("policy %d (-want +got):\n%s", tt.policy, diff)
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
}

func getenv(env []string, name string) string {
	for _, kv := range env {
		if len(kv) > len(name) && kv[:len(name)+1] == name+"=" {
			return kv[len(name)+1:]
		}
	}
	return ""
}
