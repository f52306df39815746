package tools

import (
	"sort"

	"steerable.dev/sidecar/protocol"
)

// maxSuggestions is how many names an unknown-tool result offers.
const maxSuggestions = 3

// Suggest returns up to three registered, non-hidden tool names closest to
// name by edit distance; names further than half their length away are not
// suggestions. Hidden tools are never named (tools-spec "Exposure tiers").
func (r *Registry) Suggest(name string) []string {
	type cand struct {
		name string
		dist int
	}
	var cands []cand
	if len(name) > maxCompared {
		return []string{} // no registered name (≤128 bytes) is within half its length
	}
	for _, d := range r.Descriptors() {
		if d.Exposure == protocol.ExposureHidden {
			continue
		}
		dist := editDistance(name, d.Name)
		if dist*2 <= max(len(d.Name), len(name)) {
			cands = append(cands, cand{d.Name, dist})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].dist < cands[j].dist })
	out := []string{}
	for i := 0; i < len(cands) && i < maxSuggestions; i++ {
		out = append(out, cands[i].name)
	}
	return out
}

// maxCompared bounds the work a hostile name can cause.
const maxCompared = 256

// editDistance is the Levenshtein distance over bytes, in O(len(b)) memory.
func editDistance(a, b string) int {
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
