package benchkit

import "bytes"

// topMembers calls fn with each top-level member of the JSON object line:
// the key (unquoted only when it has no escapes — the keys a client looks
// for have none) and the raw value. It stops, false, at the first thing that
// is not well formed or when fn returns false. Values are skipped by
// matching brackets and quotes, not validated: the frames come from the
// servers under test, and a frame a client cannot read fails the run
// elsewhere. It is deliberately not internal/rpc's scanner: the client
// that measures the sidecar must not share the code it measures.
func topMembers(line []byte, fn func(key string, value []byte) bool) bool {
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return false
	}
	i = skipSpace(line, i+1)
	if i < len(line) && line[i] == '}' {
		return true
	}
	for i < len(line) {
		if line[i] != '"' {
			return false
		}
		end := skipString(line, i)
		if end < 0 {
			return false
		}
		key := line[i+1 : end-1]
		i = skipSpace(line, end)
		if i >= len(line) || line[i] != ':' {
			return false
		}
		i = skipSpace(line, i+1)
		vend := skipValue(line, i)
		if vend < 0 || !fn(string(key), line[i:vend]) {
			return false
		}
		i = skipSpace(line, vend)
		switch {
		case i < len(line) && line[i] == ',':
			i = skipSpace(line, i+1)
		case i < len(line) && line[i] == '}':
			return true
		default:
			return false
		}
	}
	return false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the end of the string opening at b[i], -1 if it does
// not close.
func skipString(b []byte, i int) int {
	j := i + 1
	for {
		q := bytes.IndexByte(b[j:], '"')
		if q < 0 {
			return -1
		}
		j += q
		n := 0
		for k := j - 1; k > i && b[k] == '\\'; k-- {
			n++
		}
		j++
		if n%2 == 0 {
			return j
		}
	}
}

// skipValue returns the end of the value starting at b[i], -1 if there is
// none.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				if i = skipString(b, i); i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	}
	j := i
	for j < len(b) && !endsScalar(b[j]) {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

func endsScalar(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}
