//go:build !linux

package sandbox

import (
	"fmt"
	"os"
)

// The child roles of the non-root tests (nonroot_test.go,
// nonroot_cgroup_test.go) exercise Linux mechanisms; elsewhere they say so.

func nonrootCheck(_, _ string) int { return notHere("nonroot-check") }

func nonrootCgroupCheck(_, _, _ string) int { return notHere("nonroot-cgroup-check") }

func notHere(role string) int {
	fmt.Fprintf(os.Stderr, "the %s test role exists only on Linux\n", role)
	return 2
}
