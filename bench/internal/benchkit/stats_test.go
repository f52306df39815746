package benchkit

import (
	"os"
	"testing"
	"time"
)

// samples returns 1..n ms in reverse order: Percentile must not rely on
// sorted input.
func samples(n int) []time.Duration {
	d := make([]time.Duration, n)
	for i := range d {
		d[i] = time.Duration(n-i) * time.Millisecond
	}
	return d
}

func TestPercentile(t *testing.T) {
	for _, tc := range []struct {
		n, p int
		want int // in ms, i.e. the 1-based rank
	}{
		{1, 50, 1},
		{3, 50, 2},
		{40, 50, 20}, // the lower middle of an even count
		{40, 25, 10},
		{40, 75, 30},
		{30, 10, 3},
		{30, 90, 27},
		{300, 99, 297},
		{3000, 99, 2970},
		{5, 100, 5},
		{5, 1, 1},
	} {
		d := samples(tc.n)
		if got := Percentile(d, tc.p); got != time.Duration(tc.want)*time.Millisecond {
			t.Errorf("Percentile(1..%d, %d) = %v, want %dms", tc.n, tc.p, got, tc.want)
		}
		if d[0] != time.Duration(tc.n)*time.Millisecond {
			t.Errorf("Percentile reordered its input")
		}
	}
	if got := Percentile(nil, 50); got != 0 {
		t.Errorf("Percentile(nil) = %v, want 0", got)
	}
}

func TestRange(t *testing.T) {
	lo, hi := Range(samples(7))
	if lo != time.Millisecond || hi != 7*time.Millisecond {
		t.Errorf("Range(1..7) = %v, %v", lo, hi)
	}
}

func TestRSS(t *testing.T) {
	rss, err := RSS(os.Getpid())
	if err != nil || rss <= 0 {
		t.Fatalf("RSS = %d, %v", rss, err)
	}
	peak, err := PeakRSS(os.Getpid())
	if err != nil || peak < rss {
		t.Fatalf("PeakRSS = %d, %v; want ≥ RSS %d", peak, err, rss)
	}
	if _, err := RSS(-1); err == nil {
		t.Error("RSS of no process: no error")
	}
}
