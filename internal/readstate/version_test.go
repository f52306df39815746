package readstate

import (
	"context"
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
			if got, err := OfStringContext(context.Background(), tt.in); err != nil || got != tt.want {
				t.Errorf("OfStringContext = %s, %v; want %s", got, err, tt.want)
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

func TestOfStringContext(t *testing.T) {
	big := strings.Repeat("x", 3*hashStep+5)
	if got, _ := OfStringContext(context.Background(), big); got != OfString(big) {
		t.Error("chunked hashing differs")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := OfStringContext(ctx, big); err != context.Canceled {
		t.Errorf("cancelled: %v", err)
	}
}

func TestValid(t *testing.T) {
	for _, v := range []string{"", "abc", strings.Repeat("A", 64), strings.Repeat("g", 64), strings.Repeat("0", 63), strings.Repeat("0", 65)} {
		if Valid(v) {
			t.Errorf("Valid(%q) = true", v)
		}
	}
}
