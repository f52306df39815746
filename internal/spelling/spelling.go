// Package spelling finds the known names nearest to a mistyped one, so an
// error can say "did you mean …?": an unknown tool, an environment variable
// that does not exist, a key of a plugin manifest. Nearness is the
// Levenshtein distance; a name more than half its length away from every
// candidate gets no suggestion, since a far-fetched guess misleads more
// than none.
package spelling

import "sort"

// Suggest returns up to n candidates nearest to name, nearest first (ties
// keep the candidates' order). A candidate is a suggestion when its
// distance to name is at most half the longer of the two.
func Suggest(name string, candidates []string, n int) []string {
	type cand struct {
		name string
		dist int
	}
	var near []cand
	for _, c := range candidates {
		if d, ok := within(name, c); ok {
			near = append(near, cand{c, d})
		}
	}
	sort.SliceStable(near, func(i, j int) bool { return near[i].dist < near[j].dist })
	out := []string{}
	for i := 0; i < len(near) && i < n; i++ {
		out = append(out, near[i].name)
	}
	return out
}

// Nearest returns the one candidate nearest to name, or "" when none is
// near enough (see Suggest).
func Nearest(name string, candidates []string) string {
	if s := Suggest(name, candidates, 1); len(s) > 0 {
		return s[0]
	}
	return ""
}

// within reports the distance between a and b when it is at most half the
// longer one. The lengths alone rule most pairs out (the distance is at
// least their difference), which also bounds the work a hostile name can
// cause: the full comparison runs only on names of comparable length.
func within(a, b string) (int, bool) {
	longer := max(len(a), len(b))
	if 2*(longer-min(len(a), len(b))) > longer {
		return 0, false
	}
	d := Distance(a, b)
	return d, 2*d <= longer
}

// Distance is the Levenshtein distance between a and b over bytes, in
// O(len(b)) memory.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
