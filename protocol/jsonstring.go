package protocol

import (
	"unicode/utf8"
)

// JSONAppender is a wire type that appends its own JSON, byte for byte what
// encoding/json writes for it, for the results on the hot path: encoding/json
// re-validates and compacts whatever a MarshalJSON returns (and Health
// avoids its reflection altogether), so the connection appends these
// directly.
type JSONAppender interface {
	AppendJSON(dst []byte) ([]byte, error)
}

const hexDigits = "0123456789abcdef"

// plainWords returns how many bytes from i on JSON writes as they are
// (ASCII, no control character, '"', '\\', '<', '>' or '&'), counted a
// word of 8 at a time: most of a file's text is, and AppendJSONString
// skips it without looking at each byte.
func plainWords(s string, i int) int {
	const ones, high = 0x0101010101010101, 0x8080808080808080
	// zero(x) is non-zero iff some byte of x is 0 (exact as a whole, the
	// borrow only spreads above a zero byte). Masking one bit first
	// matches two bytes: '"' 0x22 and '&' 0x26, '<' 0x3c and '>' 0x3e.
	zero := func(x uint64) uint64 { return (x - ones) & ^x & high }
	start := i
	for ; i+8 <= len(s); i += 8 {
		b := s[i : i+8]
		w := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		bad := w&high | // non-ASCII
			(w-ones*0x20)&^w&high | // a control character: some byte < 0x20
			zero((w^(ones*'"'))&^(ones*0x04)) | zero((w^(ones*'<'))&^(ones*0x02)) | zero(w^(ones*'\\'))
		if bad != 0 {
			break
		}
	}
	return i - start
}

// AppendJSONString appends s as a JSON string exactly as encoding/json
// writes it: <, > and & as \u003c, \u003e, \u0026; U+2028 and U+2029 as
// \u2028 and \u2029; control characters as \n, \r, \t, \b, \f or
// \u00XX; invalid UTF-8 as \ufffd. Types that marshal themselves on a hot
// path use it to stay byte-identical to the reflective encoder
// (FuzzAppendJSONString compares the two).
func AppendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if i += plainWords(s, i); i >= len(s) {
			break
		}
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
