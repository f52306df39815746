package shellsession

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		name        string
		in          string
		max         int
		want        string
		wantSkipped int
	}{
		{"under the budget", "hello", 10, "hello", 0},
		{"exactly the budget", "0123456789", 10, "0123456789", 0},
		{"head a fifth, tail the rest", "0123456789abcdefghij", 10, "01\n...[10 characters truncated]...\ncdefghij", 10},
		{"characters, not bytes", strings.Repeat("é", 20), 10, "éé\n...[10 characters truncated]...\néééééééé", 10},
		{"invalid UTF-8 becomes U+FFFD", "a\xffb", 10, "a\uFFFDb", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, skipped := Clip([]byte(tc.in), tc.max)
			if diff := cmp.Diff(tc.want, got); diff != "" || skipped != tc.wantSkipped {
				t.Errorf("skipped %d (want %d), text (-want +got):\n%s", skipped, tc.wantSkipped, diff)
			}
			if !utf8.ValidString(got) {
				t.Errorf("not valid UTF-8: %q", got)
			}
		})
	}
}
