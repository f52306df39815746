package codesearch

import (
	"container/heap"
	"slices"
	"time"
)

// topK keeps the limit best items seen, so that memory is bounded by the
// limit however many items a search produces. before(a, b) says that a
// ranks ahead of b; the heap keeps the worst kept item on top.
type topK[T any] struct {
	limit  int
	before func(a, b T) bool
	items  []T
}

func newTopK[T any](limit int, before func(a, b T) bool) *topK[T] {
	return &topK[T]{limit: limit, before: before}
}

// wouldKeep reports whether an item ranking like x would be kept now.
func (t *topK[T]) wouldKeep(x T) bool {
	return len(t.items) < t.limit || t.before(x, t.items[0])
}

// push offers x; it reports whether x was kept (for now).
func (t *topK[T]) push(x T) bool {
	switch {
	case len(t.items) < t.limit:
		heap.Push(t.h(), x)
	case t.before(x, t.items[0]):
		t.items[0] = x
		heap.Fix(t.h(), 0)
	default:
		return false
	}
	return true
}

// sorted is the kept items, best first.
func (t *topK[T]) sorted() []T {
	out := slices.Clone(t.items)
	slices.SortFunc(out, func(a, b T) int {
		switch {
		case t.before(a, b):
			return -1
		case t.before(b, a):
			return 1
		}
		return 0
	})
	return out
}

func (t *topK[T]) h() heap.Interface { return (*topHeap[T])(t) }

// topHeap is topK as a heap.Interface: a max-heap by rank (the worst on
// top).
type topHeap[T any] topK[T]

func (h *topHeap[T]) Len() int           { return len(h.items) }
func (h *topHeap[T]) Less(i, j int) bool { return h.before(h.items[j], h.items[i]) }
func (h *topHeap[T]) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *topHeap[T]) Push(x any)         { h.items = append(h.items, x.(T)) }
func (h *topHeap[T]) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}

// fileKey orders files the way every result is ordered: most recently
// modified first, then by path.
type fileKey struct {
	mtime time.Time
	path  string
}

func (a fileKey) before(b fileKey) bool {
	if !a.mtime.Equal(b.mtime) {
		return a.mtime.After(b.mtime)
	}
	return a.path < b.path
}
