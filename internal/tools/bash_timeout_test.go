package tools

import (
	"strings"
	"testing"
	"time"
)

// TestBashTimeout: SPEC §4.2's default of 120000 ms, never above the
// ceiling (STEERABLE_BASH_MAX_TIMEOUT_MS); an explicit value above the
// ceiling is refused with the fix, not clamped.
func TestBashTimeout(t *testing.T) {
	ms := func(v int64) *int64 { return &v }
	tests := []struct {
		arg     *int64
		ceiling int
		want    time.Duration
		refused string
	}{
		{nil, 600000, 120 * time.Second, ""},
		{nil, 5000, 5 * time.Second, ""},
		{ms(250), 600000, 250 * time.Millisecond, ""},
		{ms(600000), 600000, 600 * time.Second, ""},
		{ms(600001), 600000, 0, "above the ceiling of 600000 ms (STEERABLE_BASH_MAX_TIMEOUT_MS); pass at most 600000"},
	}
	for _, tt := range tests {
		got, refused := bashTimeout(tt.arg, tt.ceiling)
		switch {
		case tt.refused != "":
			if refused == nil || !refused.NeedsFollowup || !strings.Contains(refused.Error, tt.refused) {
				t.Errorf("bashTimeout(%v, %d) refusal = %+v, want %q", tt.arg, tt.ceiling, refused, tt.refused)
			}
		case refused != nil || got != tt.want:
			t.Errorf("bashTimeout(%v, %d) = %v, %+v; want %v", tt.arg, tt.ceiling, got, refused, tt.want)
		}
	}
}
