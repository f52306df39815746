//go:build !linux

package sandbox

import (
	"fmt"
	"os"
)

// The child role of the non-root test (nonroot_test.go) exercises Linux
// mechanisms; elsewhere it says so.

func nonrootCheck(_, _ string) int { return notHere("nonroot-check") }

func notHere(role string) int {
	fmt.Fprintf(os.Stderr, "the %s test role exists only on Linux\n", role)
	return 2
}
