package textedit

import (
	"context"
	"strings"
)

// Matching must stay near-linear in the file's size whatever the input
// (300,000 identical lines against a 3,000-line oldText must not compare
// every line at every position) and must notice a
// cancelled call: every loop here checks its context each checkEvery steps
// or search chunks.
const checkEvery = 1 << 12

// Exact search. Up to shortPattern bytes strings.Index (vectorised, at most
// that many comparisons per text byte) searches searchChunk bytes per call,
// so a cancel is noticed between calls. A longer oldText is searched with
// Knuth–Morris–Pratt, linear whatever the input: strings.Index compares
// the whole pattern again at every near-match, which a file of repeated
// lines turns into length × length.
const (
	shortPattern = 64
	searchChunk  = 1 << 20
)

// eachExact calls yield with the start of every occurrence of old in text,
// overlapping ones included, in order.
func eachExact(ctx context.Context, text, old string, yield func(start int)) error {
	if len(old) > shortPattern {
		return newKMP(old).each(ctx, text, yield)
	}
	for at := 0; at+len(old) <= len(text); {
		if err := ctx.Err(); err != nil {
			return err
		}
		end := min(len(text), at+searchChunk+len(old)-1)
		i := strings.Index(text[at:end], old)
		if i < 0 {
			at = end - len(old) + 1 // the next chunk overlaps this one by len(old)-1
			continue
		}
		yield(at + i)
		at += i + 1
	}
	return nil
}

// kmp is a pattern with its failure function: fail[i] is the length of the
// longest proper prefix of pat[:i+1] that is also its suffix.
type kmp struct {
	pat  string
	fail []int32
}

func newKMP(pat string) kmp {
	fail := make([]int32, len(pat))
	k := int32(0)
	for i := 1; i < len(pat); i++ {
		for k > 0 && pat[i] != pat[k] {
			k = fail[k-1]
		}
		if pat[i] == pat[k] {
			k++
		}
		fail[i] = k
	}
	return kmp{pat: pat, fail: fail}
}

// each yields every occurrence of the pattern in text. The text position
// only moves forward: with nothing matched it jumps to the next copy of the
// pattern's first byte (IndexByte), a partial match is extended by block
// comparison, and a mismatch falls back along fail without rereading text.
func (k kmp) each(ctx context.Context, text string, yield func(start int)) error {
	m := len(k.pat)
	for j, q, steps := 0, 0, 0; j < len(text); steps++ {
		if steps%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if q == 0 {
			o := strings.IndexByte(text[j:], k.pat[0])
			if o < 0 {
				return nil
			}
			j += o
		}
		l := commonPrefix(text[j:], k.pat[q:])
		j, q = j+l, q+l
		switch {
		case q == m:
			yield(j - m)
			q = int(k.fail[m-1])
		case j == len(text):
			return nil
		case q == 0:
			j++
		default:
			q = int(k.fail[q-1])
		}
	}
	return nil
}

// commonPrefix is the length of the longest common prefix of a and b,
// compared a block at a time.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	const block = 64
	i := 0
	for i+block <= n && a[i:i+block] == b[i:i+block] {
		i += block
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// linePattern is a sequence of line keys to find among a text's lines.
// Knuth–Morris–Pratt runs over key IDs: each distinct pattern key gets an
// ID, and a text line whose key is not in the pattern gets none and never
// matches. Each text line then costs one key and one map lookup however
// long the pattern is.
type linePattern struct {
	ids  map[string]int32
	want []int32
	fail []int32
}

func newLinePattern(keys []string) *linePattern {
	p := &linePattern{ids: make(map[string]int32, len(keys)), want: make([]int32, len(keys)), fail: make([]int32, len(keys))}
	for i, k := range keys {
		id, ok := p.ids[k]
		if !ok {
			id = int32(len(p.ids) + 1)
			p.ids[k] = id
		}
		p.want[i] = id
	}
	k := int32(0)
	for i := 1; i < len(p.want); i++ {
		for k > 0 && p.want[i] != p.want[k] {
			k = p.fail[k-1]
		}
		if p.want[i] == p.want[k] {
			k++
		}
		p.fail[i] = k
	}
	return p
}

// scan calls found with the first line of every place where lines from..n-1
// hold the pattern, overlapping places included, until found returns
// false. key(i) is line i's key.
func (p *linePattern) scan(ctx context.Context, from, n int, key func(int) string, found func(start int) bool) error {
	m := int32(len(p.want))
	if m == 0 {
		return nil
	}
	q := int32(0) // pattern lines matched so far
	for i := from; i < n; i++ {
		if (i-from)%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		id := p.ids[key(i)]
		if id == 0 {
			q = 0
			continue
		}
		for q > 0 && p.want[q] != id {
			q = p.fail[q-1]
		}
		if p.want[q] == id {
			q++
		}
		if q == m {
			if !found(i - int(m) + 1) {
				return nil
			}
			q = p.fail[m-1]
		}
	}
	return nil
}
