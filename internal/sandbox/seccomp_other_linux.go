//go:build linux && !amd64 && !arm64

package sandbox

import (
	"errors"

	"golang.org/x/sys/unix"
)

// seccompSupported is false: no filter is written for this architecture,
// so the network and keyring rules are reported partial here.
const seccompSupported = false

func commandFilter(Policy) []unix.SockFilter { return nil }

func installSeccomp([]unix.SockFilter, bool) error {
	return errors.New("no seccomp filter for this architecture")
}

func commandFilterBytes(Policy) []byte { return nil }
