package codesearch

// wildmatch is git's wildmatch (wildmatch.c) with WM_PATHNAME: the glob
// dialect of .gitignore patterns. It differs from path.Match and from the
// doublestar dialect of the glob tool: `[!...]` and `[^...]` both negate,
// POSIX classes such as `[[:alpha:]]` are allowed, there are no braces, and
// `**` spans directories only as a whole component (`**/x`, `x/**`,
// `x/**/y`); elsewhere it is a plain `*`. It is a faithful port so that
// every pattern means here what it means to git (and, for the cases both
// handle, to ripgrep).
//
// The abort results cut most of the backtracking: once a `*` has failed to
// match at some text position, no later alternative for an earlier `*` can
// do better. They do not cut it across `**` ("**/**/**/…/b" tries every
// way to split the path, exponential in the number of `**`), and ignore
// files come from the tree, so from anyone: past a small number of steps
// the matcher memoises each (pattern position, text position) result,
// which bounds any match by O(len(pattern)·len(text)²).

const (
	wmMatch = iota
	wmNoMatch
	wmAbortAll
	wmAbortToStarStar
)

// wildmatch reports whether text matches pattern.
func wildmatch(pattern, text string) bool {
	m := wm{p: pattern, text: text}
	return m.dowild(0, 0) == wmMatch
}

// memoAfter is how many steps run before results are memoised.
const memoAfter = 512

// wm is one match in progress.
type wm struct {
	p, text string
	steps   int
	memo    map[int]int8
}

// at is s[i], or 0 past its end (the C code's NUL terminator).
func at(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

func isGlobSpecial(c byte) bool {
	return c == '*' || c == '?' || c == '[' || c == '\\'
}

func (m *wm) dowild(pi, ti int) int {
	key := pi*(len(m.text)+1) + ti
	if m.memo != nil {
		if r, ok := m.memo[key]; ok {
			return int(r)
		}
	} else if m.steps++; m.steps > memoAfter {
		m.memo = map[int]int8{}
	}
	r := m.match(pi, ti)
	if m.memo != nil {
		m.memo[key] = int8(r)
	}
	return r
}

func (m *wm) match(pi, ti int) int {
	p, text := m.p, m.text
	for ; pi < len(p); pi, ti = pi+1, ti+1 {
		pc := p[pi]
		tc := at(text, ti)
		if ti >= len(text) && pc != '*' {
			return wmAbortAll
		}
		switch pc {
		case '\\':
			// A literal match with the next character; a trailing
			// backslash matches nothing.
			pi++
			if pi >= len(p) || tc != p[pi] {
				return wmNoMatch
			}
		case '?':
			if tc == '/' {
				return wmNoMatch
			}
		case '*':
			return m.star(pi, ti)
		case '[':
			end, ok := class(p, pi, tc)
			switch {
			case end < 0:
				return wmAbortAll
			case !ok || tc == '/':
				return wmNoMatch
			}
			pi = end
		default:
			if tc != pc {
				return wmNoMatch
			}
		}
	}
	if ti < len(text) {
		return wmNoMatch
	}
	return wmMatch
}

// star matches the `*` or `**` at p[pi] and the rest of the pattern.
func (m *wm) star(pi, ti int) int {
	p, text := m.p, m.text
	matchSlash := false
	if pi++; at(p, pi) == '*' {
		prev := pi - 2
		for pi++; at(p, pi) == '*'; pi++ {
		}
		if (prev < 0 || p[prev] == '/') &&
			(pi >= len(p) || p[pi] == '/' || (p[pi] == '\\' && at(p, pi+1) == '/')) {
			// "**/" may match no directory at all: try the rest of
			// the pattern here first (foo/**/bar matches foo/bar).
			if at(p, pi) == '/' && m.dowild(pi+1, ti) == wmMatch {
				return wmMatch
			}
			matchSlash = true
		}
	}
	if pi >= len(p) {
		// A trailing "**" matches everything, a trailing "*" only
		// what has no slash left.
		if !matchSlash && indexByteFrom(text, ti, '/') >= 0 {
			return wmNoMatch
		}
		return wmMatch
	}
	if !matchSlash && p[pi] == '/' {
		// "*/": the star takes the rest of this component.
		slash := indexByteFrom(text, ti, '/')
		if slash < 0 {
			return wmNoMatch
		}
		return m.dowild(pi, slash)
	}
	for ti < len(text) {
		if !isGlobSpecial(p[pi]) {
			// A literal follows: skip ahead to its next occurrence
			// (within this component unless the star spans them).
			for ti < len(text) && text[ti] != p[pi] && (matchSlash || text[ti] != '/') {
				ti++
			}
			if ti >= len(text) || text[ti] != p[pi] {
				return wmNoMatch
			}
		}
		r := m.dowild(pi, ti)
		if r != wmNoMatch {
			if !matchSlash || r != wmAbortToStarStar {
				return r
			}
		} else if !matchSlash && text[ti] == '/' {
			return wmAbortToStarStar
		}
		ti++
	}
	return wmAbortAll
}

func indexByteFrom(s string, from int, c byte) int {
	for i := from; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// class matches tc against the bracket expression starting at p[pi] ('[').
// It returns the index of the closing ']' and whether tc is in the class
// (negation applied), or end -1 when the class is malformed, which git
// treats as a pattern that matches nothing.
func class(p string, pi int, tc byte) (end int, ok bool) {
	pi++
	pc := at(p, pi)
	negated := pc == '!' || pc == '^'
	if negated {
		pi++
		pc = at(p, pi)
	}
	var prev byte
	matched := false
	for {
		if pi >= len(p) {
			return -1, false
		}
		switch {
		case pc == '\\':
			pi++
			if pi >= len(p) {
				return -1, false
			}
			pc = p[pi]
			if tc == pc {
				matched = true
			}
		case pc == '-' && prev != 0 && pi+1 < len(p) && p[pi+1] != ']':
			pi++
			pc = p[pi]
			if pc == '\\' {
				if pi++; pi >= len(p) {
					return -1, false
				}
				pc = p[pi]
			}
			if tc <= pc && tc >= prev {
				matched = true
			}
			pc = 0 // a range cannot start another range
		case pc == '[' && at(p, pi+1) == ':':
			next, in, valid := posixClass(p, pi, tc)
			if !valid {
				return -1, false
			}
			if next < 0 { // not a [:name:] after all: a literal '['
				if tc == '[' {
					matched = true
				}
			} else {
				pi = next
				matched = matched || in
				pc = 0
			}
		case tc == pc:
			matched = true
		}
		prev = pc
		pi++
		if pc = at(p, pi); pc == ']' {
			break
		}
	}
	return pi, matched != negated
}

// posixClass reads "[:name:]" at p[pi]. next is the index of its final ']'
// (-1 when the text is not a class and '[' is a literal); valid is false
// for an unknown name or a class that never closes.
func posixClass(p string, pi int, tc byte) (next int, in, valid bool) {
	s := pi + 2
	e := s
	for e < len(p) && p[e] != ']' {
		e++
	}
	if e >= len(p) {
		return 0, false, false
	}
	if e-s < 1 || p[e-1] != ':' {
		return -1, false, true
	}
	fn, known := posixClasses[p[s:e-1]]
	if !known {
		return 0, false, false
	}
	return e, fn(tc), true
}

var posixClasses = map[string]func(c byte) bool{
	"alnum":  func(c byte) bool { return isAlpha(c) || isDigit(c) },
	"alpha":  isAlpha,
	"blank":  func(c byte) bool { return c == ' ' || c == '\t' },
	"cntrl":  func(c byte) bool { return c < 0x20 || c == 0x7f },
	"digit":  isDigit,
	"graph":  func(c byte) bool { return c > 0x20 && c < 0x7f },
	"lower":  func(c byte) bool { return c >= 'a' && c <= 'z' },
	"print":  func(c byte) bool { return c >= 0x20 && c < 0x7f },
	"punct":  func(c byte) bool { return c > 0x20 && c < 0x7f && !isAlpha(c) && !isDigit(c) },
	"space":  func(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') },
	"upper":  func(c byte) bool { return c >= 'A' && c <= 'Z' },
	"xdigit": func(c byte) bool { return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f') },
}

func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
