package env

import (
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// tagLookup is reflect.StructTag.Lookup, finding the closing quote of each
// value with strings.IndexByte instead of a loop over every byte: a struct
// whose tags carry long values (help texts) is otherwise scanned byte by
// byte for every key looked up, and a key that is absent (most envDefault
// lookups) scans the whole tag (PATCHED.md).
func tagLookup(tag reflect.StructTag, key string) (string, bool) {
	t := string(tag)
	for t != "" {
		i := 0
		for i < len(t) && t[i] == ' ' {
			i++
		}
		t = t[i:]
		if t == "" {
			break
		}
		i = 0
		for i < len(t) && t[i] > ' ' && t[i] != ':' && t[i] != '"' && t[i] != 0x7f {
			i++
		}
		if i == 0 || i+1 >= len(t) || t[i] != ':' || t[i+1] != '"' {
			break
		}
		name := t[:i]
		t = t[i+1:]
		end := closingQuote(t)
		if end < 0 {
			break
		}
		qvalue := t[:end+1]
		t = t[end+1:]
		if name == key {
			return unquote(qvalue)
		}
	}
	return "", false
}

// tagGet is reflect.StructTag.Get over tagLookup.
func tagGet(tag reflect.StructTag, key string) string {
	v, _ := tagLookup(tag, key)
	return v
}

// closingQuote returns the index in q of the quote closing the string that
// q[0] opens, or -1.
func closingQuote(q string) int {
	for i := 1; ; {
		j := strings.IndexByte(q[i:], '"')
		if j < 0 {
			return -1
		}
		i += j
		backslashes := 0
		for k := i - 1; k > 0 && q[k] == '\\'; k-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return i
		}
		i++
	}
}

// unquote is strconv.Unquote as reflect.StructTag.Lookup uses it (a value
// that does not unquote is not found), returning a value with nothing to
// unquote as it is.
func unquote(q string) (string, bool) {
	if strings.IndexByte(q, '\\') < 0 && strings.IndexByte(q, '\n') < 0 && utf8.ValidString(q) {
		return q[1 : len(q)-1], true
	}
	v, err := strconv.Unquote(q)
	if err != nil {
		return "", false
	}
	return v, true
}
