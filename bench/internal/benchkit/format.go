package benchkit

import (
	"fmt"
	"time"
)

// Millis writes d in milliseconds with two decimals, "1.25 ms".
func Millis(d time.Duration) string {
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}

// Verdict is the word a report prints beside a target: "ok" when it is met,
// "MISS" when not. A miss is printed, never a failure of the run.
func Verdict(ok bool) string {
	if ok {
		return "ok"
	}
	return "MISS"
}
