package codesearch

import (
	"bytes"
	"strings"
)

// verdict is what one ignore file (or the default set) says about a path.
type verdict int8

const (
	unmatched   verdict = iota // no rule matches: ask the next source
	ignored                    // the last matching rule excludes it
	whitelisted                // the last matching rule is a negation ("!x")
)

// rule is one pattern line of an ignore file (gitignore(5) "PATTERN
// FORMAT").
type rule struct {
	glob     string // the pattern, without "!", leading "/" and trailing "/"
	negate   bool   // "!pattern": re-include
	dirOnly  bool   // "pattern/": directories only
	basename bool   // no slash: matched against the last component at any depth
	kind     ruleKind
	lit      string // the literal of kindExact and kindSuffix
}

// ruleKind picks a cheaper test than wildmatch where the pattern allows it
// (git does the same: PATTERN_FLAG_ENDSWITH, a literal compare).
type ruleKind int8

const (
	kindGlob   ruleKind = iota
	kindExact           // no wildcards: compare
	kindSuffix          // "*" then a literal: a suffix test
)

// ruleSet is the rules of one ignore file, in file order: the last rule
// that matches a path decides.
type ruleSet struct {
	rules []rule
}

// maxIgnoreBytes bounds what is read of one ignore file; the rest is
// ignored (a real .gitignore is a few KiB).
const maxIgnoreBytes = 1 << 20

// parseIgnore parses the content of a .gitignore, .ignore or
// .git/info/exclude. It never fails: a line that is not a valid pattern
// (an unclosed "[") matches nothing, as in git.
func parseIgnore(content []byte) *ruleSet {
	content = bytes.TrimPrefix(content, []byte("\xef\xbb\xbf"))
	rs := &ruleSet{}
	for len(content) > 0 {
		var line []byte
		line, content, _ = bytes.Cut(content, []byte{'\n'})
		if r, ok := parseRule(string(bytes.TrimSuffix(line, []byte{'\r'}))); ok {
			rs.rules = append(rs.rules, r)
		}
	}
	return rs
}

// Bounds on one rule. A longer rule, or one with more wildcards, is
// dropped (its files are listed, not hidden): no real ignore file has one,
// and each bounds the work of matching a path against it.
const (
	maxRuleBytes = 1024
	maxRuleStars = 64
)

// parseRule parses one line; ok is false for blank lines, comments and
// rules over the bounds.
func parseRule(line string) (rule, bool) {
	line = trimTrailingSpaces(line)
	if line == "" || line[0] == '#' || len(line) > maxRuleBytes || strings.Count(line, "*") > maxRuleStars {
		return rule{}, false
	}
	var r rule
	if line[0] == '!' {
		r.negate = true
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") && !strings.HasSuffix(line, `\/`) {
		r.dirOnly = true
		line = line[:len(line)-1]
	}
	r.basename = !strings.Contains(line, "/")
	line = strings.TrimPrefix(line, "/")
	if line == "" {
		return rule{}, false
	}
	r.glob = line
	r.kind, r.lit = classify(line)
	return r, true
}

// trimTrailingSpaces drops trailing spaces that are not escaped with a
// backslash ("foo\ " keeps its space), as git's trim_trailing_spaces does.
func trimTrailingSpaces(s string) string {
	lastSpace := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if lastSpace < 0 {
				lastSpace = i
			}
		case '\\':
			if i++; i >= len(s) {
				return s
			}
			lastSpace = -1
		default:
			lastSpace = -1
		}
	}
	if lastSpace >= 0 {
		return s[:lastSpace]
	}
	return s
}

// classify finds the cheap test for a pattern.
func classify(glob string) (ruleKind, string) {
	if !strings.ContainsAny(glob, `*?[\`) {
		return kindExact, glob
	}
	if glob[0] == '*' && len(glob) > 1 && !strings.ContainsAny(glob[1:], `*?[\`) {
		return kindSuffix, glob[1:]
	}
	return kindGlob, ""
}

// match is the verdict of the rules on a path relative to the file's
// directory (rel, with "/" separators; base is its last component).
func (rs *ruleSet) match(rel, base string, isDir bool) verdict {
	if rs == nil {
		return unmatched
	}
	for i := len(rs.rules) - 1; i >= 0; i-- {
		r := &rs.rules[i]
		if r.matches(rel, base, isDir) {
			if r.negate {
				return whitelisted
			}
			return ignored
		}
	}
	return unmatched
}

func (r *rule) matches(rel, base string, isDir bool) bool {
	if r.dirOnly && !isDir {
		return false
	}
	name := rel
	if r.basename {
		name = base
	}
	switch r.kind {
	case kindExact:
		return name == r.lit
	case kindSuffix:
		// "*" never spans "/", so a suffix rule on a whole path must
		// find no slash before the suffix.
		return strings.HasSuffix(name, r.lit) && (r.basename || !strings.Contains(name[:len(name)-len(r.lit)], "/"))
	}
	return wildmatch(r.glob, name)
}

// empty reports whether the set has no rules (or is nil).
func (rs *ruleSet) empty() bool { return rs == nil || len(rs.rules) == 0 }
