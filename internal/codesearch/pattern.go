package codesearch

import (
	"errors"
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Errors of a glob pattern, tested with errors.Is.
var (
	ErrEmptyPattern = errors.New("pattern is empty")
	ErrBadGlob      = errors.New("invalid glob pattern")
)

// Glob patterns are doublestar's dialect (github.com/bmatcuk/doublestar):
// "*" and "?" never match "/", "**" as a whole component spans any number
// of directories, "{a,b}" are alternatives, "[a-z]" and "[!a-z]" classes,
// "\" escapes.

const (
	// MaxPatternBytes bounds a glob.
	MaxPatternBytes = 4096
	// maxAlternatives bounds the combinations of a pattern's braces:
	// doublestar tries each, so "{a,b}{a,b}…" could cost 2^n per path.
	maxAlternatives = 1024
)

// globPattern is a validated glob.
type globPattern struct {
	pattern  string
	segments []string // the pattern split at "/"; nil when a brace holds a "/"
}

func parseGlob(p string) (globPattern, error) {
	switch {
	case p == "":
		return globPattern{}, fmt.Errorf("%w: pass a glob such as \"**/*.go\"", ErrEmptyPattern)
	case strings.TrimSpace(p) == "":
		// A name can hold spaces, but no one means a file named only
		// blanks: this is an empty pattern a model padded.
		return globPattern{}, fmt.Errorf("%w (white space only): pass a glob such as \"**/*.go\"", ErrEmptyPattern)
	case len(p) > MaxPatternBytes:
		return globPattern{}, fmt.Errorf("%w: the pattern is %d bytes, over the %d-byte limit", ErrBadGlob, len(p), MaxPatternBytes)
	case !doublestar.ValidatePattern(p):
		return globPattern{}, fmt.Errorf("%w %q: a bracket or brace is not closed, or it ends in a backslash; escape a literal [ { or \\ with a backslash", ErrBadGlob, p)
	}
	if n := alternatives(p); n > maxAlternatives {
		return globPattern{}, fmt.Errorf("%w %q: its braces expand to more than %d alternatives; use fewer, or run several searches", ErrBadGlob, p, maxAlternatives)
	}
	g := globPattern{pattern: p}
	if !slashInBraces(p) {
		g.segments = strings.Split(p, "/")
	}
	return g, nil
}

// alternatives is an upper bound on the combinations of p's braces: the
// product, over every brace group, of its number of alternatives.
func alternatives(p string) int {
	product := 1
	var counts []int // alternatives of each open group
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '{':
			counts = append(counts, 1)
		case ',':
			if len(counts) > 0 {
				counts[len(counts)-1]++
			}
		case '}':
			if len(counts) > 0 {
				product *= counts[len(counts)-1]
				counts = counts[:len(counts)-1]
				if product > maxAlternatives {
					return product
				}
			}
		}
	}
	return product
}

// slashInBraces reports whether a "/" of p is inside braces, inside a
// bracket class, or escaped: then splitting p at "/" would not give its
// path segments.
func slashInBraces(p string) bool {
	depth, inClass := 0, false
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\':
			if i+1 < len(p) && p[i+1] == '/' {
				return true
			}
			i++
		case inClass:
			if c == ']' {
				inClass = false
			} else if c == '/' {
				return true
			}
		case c == '[':
			inClass = true
			if i+1 < len(p) && (p[i+1] == '!' || p[i+1] == '^') {
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				i++ // a leading ']' is a member
			}
		case c == '{':
			depth++
		case c == '}':
			depth--
		case c == '/' && depth > 0:
			return true
		}
	}
	return false
}

func (g globPattern) match(path string) bool { return doublestar.MatchUnvalidated(g.pattern, path) }

// mayHold reports whether files below the directory dir (relative to the
// pattern's base) can match: each of its components must match the
// pattern's segment at that depth, until a "**" segment, which can hold
// anything below.
func (g globPattern) mayHold(dir string) bool {
	if g.segments == nil {
		return true
	}
	for i, c := range strings.Split(dir, "/") {
		if i < len(g.segments) && g.segments[i] == "**" {
			return true
		}
		if i >= len(g.segments)-1 {
			return false
		}
		if !doublestar.MatchUnvalidated(g.segments[i], c) {
			return false
		}
	}
	return true
}

// hiddenSegments are the segments of g that name hidden entries: they
// start with a dot, or have an alternative that does ("{.env,.envrc}").
func (g globPattern) hiddenSegments() []string {
	var out []string
	for _, seg := range strings.Split(g.pattern, "/") {
		if seg == "." || seg == ".." {
			continue
		}
		if strings.HasPrefix(seg, ".") || strings.Contains(seg, "{.") || strings.Contains(seg, ",.") {
			out = append(out, seg)
		}
	}
	return out
}

// selector is what a walk selects beyond the ignore rules.
type selector struct {
	match  func(fromTop, name string) bool // nil: every file
	enter  func(fromTop string) bool       // nil: every directory
	hidden []string                        // glob segments whose matches may be hidden
}

func (s selector) matches(fromTop, name string) bool { return s.match == nil || s.match(fromTop, name) }
func (s selector) mayEnter(fromTop string) bool      { return s.enter == nil || s.enter(fromTop) }

// namesHidden reports whether the pattern names the hidden entry name.
func (s selector) namesHidden(name string) bool {
	for _, seg := range s.hidden {
		if doublestar.MatchUnvalidated(seg, name) {
			return true
		}
	}
	return false
}

// fileFilter is grep's glob argument, ripgrep's --glob: without a "/" it
// matches file names at any depth ("*.go"), with one the path from the
// search directory ("src/**/*.go"); a leading "!" excludes what matches.
func fileFilter(p string) (selector, error) {
	negate := strings.HasPrefix(p, "!")
	p = strings.TrimPrefix(strings.TrimPrefix(p, "!"), "/")
	g, err := parseGlob(p)
	if err != nil {
		return selector{}, err
	}
	basename := !strings.Contains(p, "/")
	s := selector{match: func(fromTop, name string) bool {
		if basename {
			return g.match(name) != negate
		}
		return g.match(fromTop) != negate
	}}
	if !negate {
		s.hidden = g.hiddenSegments()
	}
	return s, nil
}
