//go:build !linux

package sandbox

import (
	"fmt"
	"io"
)

// ExecMain is the hidden HelperCommand; only the Linux Landlock backend uses
// it.
func ExecMain(_ []string, stderr io.Writer) int {
	fmt.Fprintf(stderr, "steerable-sidecar %s: Landlock exists only on Linux\n", HelperCommand)
	return 126
}
