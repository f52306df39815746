//go:build linux

package sandbox

import "golang.org/x/sys/unix"

// auditArch is the seccomp_data.arch of native syscalls; x32SyscallBit marks
// x32 syscalls, which share the native arch value and are refused.
const (
	auditArch     = unix.AUDIT_ARCH_X86_64
	x32SyscallBit = 0x40000000
)

// modeSyscalls are the syscalls that set a file's mode, with the index of
// their mode argument (setidModeRefused).
var modeSyscalls = map[uint32]int{unix.SYS_CHMOD: 1, unix.SYS_FCHMOD: 1, unix.SYS_FCHMODAT: 2, unix.SYS_FCHMODAT2: 2}
