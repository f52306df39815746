package launch

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCapture(t *testing.T) {
	tests := []struct {
		name   string
		max    int
		writes []string
		want   string
		trunc  bool
	}{
		{"empty", 8, nil, "", false},
		{"fits", 8, []string{"abc", "de"}, "abcde", false},
		{"exactly max", 8, []string{"abcdefgh"}, "abcdefgh", false},
		{"one over", 8, []string{"abcdefghi"}, "abcd\n...[1 bytes truncated]...\nfghi", true},
		{"many small writes", 8, strings.Split("0123456789xyz", ""), "0123\n...[5 bytes truncated]...\n9xyz", true},
		{"big then small", 6, []string{"abcdefghijkl", "mn"}, "abc\n...[8 bytes truncated]...\nlmn", true},
		// "é" is two bytes: a cut through it drops the partial halves.
		{"utf8 cut at the head", 6, []string{"ab\xc3\xa9cdefg"}, "ab\n...[4 bytes truncated]...\nefg", true},
		{"utf8 whole at the tail", 6, []string{"abcdefg\xc3\xa9h"}, "abc\n...[4 bytes truncated]...\néh", true},
		{"utf8 cut at the tail", 6, []string{"abcdefg\xc3\xa9hi"}, "abc\n...[6 bytes truncated]...\nhi", true},
	}
	for _, tt := range tests {
		c := NewCapture(tt.max)
		for _, w := range tt.writes {
			c.Write([]byte(w))
		}
		if diff := cmp.Diff(tt.want, c.String()); diff != "" || c.Truncated() != tt.trunc {
			t.Errorf("%s: truncated=%v (-want +got):\n%s", tt.name, c.Truncated(), diff)
		}
	}
}
