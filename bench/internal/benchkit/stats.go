package benchkit

import (
	"slices"
	"time"
)

// Percentile is the nearest-rank p-th percentile of d (0 < p ≤ 100): the
// smallest sample that at least p% of the samples do not exceed, so p50 of
// an even count is the lower of the two middle samples. d is left in its
// order; an empty d gives 0.
func Percentile(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(d))
	return s[rank(len(s), p)]
}

// rank is the index of the nearest-rank p-th percentile of n sorted
// samples, ⌈n·p/100⌉ − 1.
func rank(n, p int) int {
	return max(0, (n*p+99)/100-1)
}

// Median is Percentile(d, 50).
func Median(d []time.Duration) time.Duration { return Percentile(d, 50) }

// Range is the smallest and the largest sample of d (0, 0 when empty).
func Range(d []time.Duration) (lo, hi time.Duration) {
	if len(d) == 0 {
		return 0, 0
	}
	return slices.Min(d), slices.Max(d)
}
