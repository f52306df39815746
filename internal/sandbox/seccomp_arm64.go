//go:build linux

package sandbox

import "golang.org/x/sys/unix"

// auditArch is the seccomp_data.arch of native syscalls; arm64 has no x32.
const (
	auditArch     = unix.AUDIT_ARCH_AARCH64
	x32SyscallBit = 0
)

// modeSyscalls are the syscalls that set a file's mode, with the index of
// their mode argument (setidModeRefused); arm64 has no chmod(2).
var modeSyscalls = map[uint32]int{unix.SYS_FCHMOD: 1, unix.SYS_FCHMODAT: 2, unix.SYS_FCHMODAT2: 2}
