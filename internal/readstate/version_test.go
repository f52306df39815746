package readstate

import (
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"empty", "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"hello", "hello\n", "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"},
		{"crlf kept", "a\r\nb\r\n", "58055bdcc73787eb88c78d36f0b4939e9c5dc1c3ad17e25cc85a6833cf1a0cab"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Of([]byte(tt.in)); got != tt.want {
				t.Errorf("Of = %s, want %s", got, tt.want)
			}
			if got := OfString(tt.in); got != tt.want {
				t.Errorf("OfString = %s, want %s", got, tt.want)
			}
			h := NewHasher()
			for _, c := range []byte(tt.in) { // byte by byte: streaming gives the same version
				h.Write([]byte{c})
			}
			if got := h.Version(); got != tt.want {
				t.Errorf("Hasher = %s, want %s", got, tt.want)
			}
			if !Valid(tt.want) {
				t.Errorf("Valid(%s) = false", tt.want)
			}
		})
	}
}

func TestValid(t *testing.T) {
	for _, v := range []string{"", "abc", strings.Repeat("A", 64), strings.Repeat("g", 64), strings.Repeat("0", 63), strings.Repeat("0", 65)} {
		if Valid(v) {
			t.Errorf("Valid(%q) = true", v)
		}
	}
}
