package protocol

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// The frame reader (internal/rpc) and the tools' argument check look at the
// top level of an object only: which members there are and where each
// value starts and ends. After json.Valid has checked the whole object in
// one pass, that needs no decoding at all — the values (params above all)
// stay spans of the frame, decoded once, by whoever needs them, into the
// type they need.

// EachMember calls fn with every member of the JSON object b, in order:
// the key (unquoted) and the value (raw, a span of b). b must be valid JSON
// (json.Valid); EachMember reports false when it is not an object. Keys are
// matched exactly by callers, as JSON-RPC names are case-sensitive.
func EachMember(b []byte, fn func(key, value []byte)) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	for i < len(b) && b[i] != '}' {
		end := skipString(b, i)
		key := b[i+1 : end-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			var k string
			_ = json.Unmarshal(b[i:end], &k) // valid JSON: cannot fail
			key = []byte(k)
		}
		i = skipSpace(b, end)
		i = skipSpace(b, i+1) // the colon
		end = skipValue(b, i)
		fn(key, b[i:end])
		i = skipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	return true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipValue returns the end of the valid JSON value starting at b[i].
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		return skipComposite(b, i)
	}
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// skipString returns the end of the string starting at b[i] (its opening
// quote): the index after the first quote not escaped by a backslash.
func skipString(b []byte, i int) int {
	j := i + 1
	for {
		q := bytes.IndexByte(b[j:], '"')
		if q < 0 {
			return len(b) // not reached for valid JSON
		}
		j += q
		backslashes := 0
		for k := j - 1; k > i && b[k] == '\\'; k-- {
			backslashes++
		}
		j++
		if backslashes%2 == 0 {
			return j
		}
	}
}

// skipComposite returns the end of the object or array starting at b[i].
func skipComposite(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			i = skipString(b, i)
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
		i++
	}
	return i
}

// Unquote returns the value of the JSON string s (valid, with its quotes):
// a copy of its bytes when it has no escape and is valid UTF-8, else what
// encoding/json decodes (which replaces invalid UTF-8 with U+FFFD).
func Unquote(s []byte) string {
	if len(s) >= 2 && bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) {
		return string(s[1 : len(s)-1])
	}
	var v string
	_ = json.Unmarshal(s, &v)
	return v
}
