//go:build linux && !amd64 && !arm64

package sandbox

import "errors"

// seccompSupported is false: no filter is written for this architecture, so
// Landlock's network rule is reported partial here.
const seccompSupported = false

func denySockets() error { return errors.New("no seccomp filter for this architecture") }
