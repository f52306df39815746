//go:build linux && !amd64 && !arm64

package sandbox

import (
	"errors"

	"golang.org/x/sys/unix"
)

// seccompSupported is false: no filter is written for this architecture,
// so the network rule is reported partial here.
const seccompSupported = false

func socketFilter(bool) []unix.SockFilter { return nil }

func installSeccomp([]unix.SockFilter, bool) error {
	return errors.New("no seccomp filter for this architecture")
}

func socketFilterBytes(bool) []byte { return nil }
