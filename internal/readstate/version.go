package readstate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"unsafe"
)

// VersionLen is the length of a version: 64 lowercase hex digits.
const VersionLen = 2 * sha256.Size

// Hasher computes a version while the bytes stream through it (read_file
// hashes a file of any size in the same pass that reads it).
type Hasher struct{ h hash.Hash }

// NewHasher returns a Hasher with nothing written yet.
func NewHasher() *Hasher { return &Hasher{h: sha256.New()} }

// Write adds p to the hashed bytes; it never fails.
func (h *Hasher) Write(p []byte) (int, error) { return h.h.Write(p) }

// Version is the version of everything written so far.
func (h *Hasher) Version() string { return hex.EncodeToString(h.h.Sum(nil)) }

// Of is the version of b: the lowercase hex SHA-256 of its exact bytes.
func Of(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// OfString is the version of the bytes of s, hashed in place: a content
// the tools hold as a string is not copied to be hashed.
func OfString(s string) string {
	return Of(unsafe.Slice(unsafe.StringData(s), len(s))) // Of only reads it
}

// hashStep is how much OfStringContext hashes between checks of its
// context: a few milliseconds of SHA-256.
const hashStep = 4 << 20

// OfStringContext is OfString for a content large enough that hashing it
// takes longer than a cancel should wait: it checks
// ctx every hashStep bytes and stops with its error.
func OfStringContext(ctx context.Context, s string) (string, error) {
	h := NewHasher()
	b := unsafe.Slice(unsafe.StringData(s), len(s)) // only read
	for len(b) > 0 {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		n := min(len(b), hashStep)
		h.Write(b[:n])
		b = b[n:]
	}
	return h.Version(), nil
}

// Valid reports whether v has the shape of a version.
func Valid(v string) bool {
	if len(v) != VersionLen {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

var _ io.Writer = (*Hasher)(nil)
