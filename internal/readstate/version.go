package readstate

import (
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
