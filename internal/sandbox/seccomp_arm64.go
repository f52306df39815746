//go:build linux

package sandbox

import "golang.org/x/sys/unix"

// auditArch is the seccomp_data.arch of native syscalls; arm64 has no x32.
const (
	auditArch     = unix.AUDIT_ARCH_AARCH64
	x32SyscallBit = 0
)
