package tools

import "crypto/rand"

const callIDAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

// NewCallID returns a cuid2-style id: "c" followed by 24 random lowercase
// base-36 characters, for tool calls that arrive without one.
func NewCallID() string {
	b := make([]byte, 25)
	b[0] = 'c'
	rand.Read(b[1:])
	for i := 1; i < len(b); i++ {
		// The modulo bias (256 = 7·36 + 4) is irrelevant for an id.
		b[i] = callIDAlphabet[int(b[i])%len(callIDAlphabet)]
	}
	return string(b)
}
