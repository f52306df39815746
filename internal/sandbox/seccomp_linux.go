//go:build linux && (amd64 || arm64)

package sandbox

import (
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// seccompSupported says whether socketFilter has a program for this
// architecture.
const seccompSupported = true

// installSeccomp installs prog on the calling thread (every thread with
// tsync). The caller has set no_new_privs.
func installSeccomp(prog []unix.SockFilter, tsync bool) error {
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	var flags uintptr
	if tsync {
		flags = unix.SECCOMP_FILTER_FLAG_TSYNC
	}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, flags, uintptr(unsafe.Pointer(&fprog)))
	if errno != 0 {
		return errno
	}
	return nil
}

// seccompBytes is prog as the raw struct sock_filter array bubblewrap's
// --seccomp reads from a descriptor.
func seccompBytes(prog []unix.SockFilter) []byte {
	b := make([]byte, 0, 8*len(prog))
	for _, ins := range prog {
		b = binary.NativeEndian.AppendUint16(b, ins.Code)
		b = append(b, ins.Jt, ins.Jf)
		b = binary.NativeEndian.AppendUint32(b, ins.K)
	}
	return b
}

// filterKind is which of the three programs a policy gets: the network
// on (the keyring syscalls refused), the network off with AF_UNIX refused,
// or the network off with AF_UNIX allowed.
type filterKind int

const (
	filterNetOn filterKind = iota
	filterNetOff
	filterNetOffUnix
)

func kindOf(p Policy) filterKind {
	switch {
	case !p.socketsDenied():
		return filterNetOn
	case p.UnixSockets:
		return filterNetOffUnix
	}
	return filterNetOff
}

// commandFilters are the three programs, assembled once (with their bytes
// for bubblewrap): every confined child gets one of them. They are shared;
// nobody modifies them.
var commandFilters = [3]func() compiledFilter{
	sync.OnceValue(func() compiledFilter { return compileFilter(filterNetOn) }),
	sync.OnceValue(func() compiledFilter { return compileFilter(filterNetOff) }),
	sync.OnceValue(func() compiledFilter { return compileFilter(filterNetOffUnix) }),
}

type compiledFilter struct {
	prog  []unix.SockFilter
	bytes []byte // the struct sock_filter array bubblewrap's --seccomp reads
}

func compileFilter(k filterKind) compiledFilter {
	prog := assembleFilter(k)
	return compiledFilter{prog: prog, bytes: seccompBytes(prog)}
}

// commandFilter is assembleFilter's program for p, shared.
func commandFilter(p Policy) []unix.SockFilter { return commandFilters[kindOf(p)]().prog }

// commandFilterBytes is commandFilter for bubblewrap's --seccomp, shared.
func commandFilterBytes(p Policy) []byte { return commandFilters[kindOf(p)]().bytes }

// Offsets in struct seccomp_data.
const (
	seccompNr   = 0
	seccompArch = 4
	seccompArg0 = 16 // low 32 bits on little-endian architectures
)

// setidBits are the mode bits no command may set (S_ISUID, S_ISGID).
const setidBits = unix.S_ISUID | unix.S_ISGID

// keyringSyscalls reach the kernel's keyrings: the sidecar's session
// keyring, the user's and persistent keyrings (launch/keyrings_linux.go).
var keyringSyscalls = []uint32{unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY}

// assembleFilter is the classic BPF program every confined command runs
// under:
//
//   - keyctl(2), add_key(2) and request_key(2) fail with ENOSYS, as on a
//     kernel without keyrings (programs that can use them fall back): the
//     keyrings are not namespaced, and a command would otherwise search,
//     read or link the keys of the sidecar's user (launch/keyrings_linux.go);
//
//   - with the network off, socket(2) fails with EACCES for every address
//     family — AF_UNIX too, unless k allows it (socketpair(2) is another
//     syscall and stays allowed) — and io_uring_setup(2) with ENOSYS
//     (io_uring can create sockets without socket(2)). That closes what
//     Landlock leaves open with the network off: UDP below ABI 10, raw
//     and packet sockets, netlink (which root could use to reconfigure the
//     host's interfaces), and pathname UNIX sockets such as a Docker
//     daemon's.
//
//   - chmod(2), fchmod(2), fchmodat(2) and fchmodat2(2) fail with EPERM
//     when the mode has the set-user-ID or set-group-ID bit: Landlock does
//     not govern a file's metadata, so a root sidecar's command could
//     otherwise make a root-owned program outside the writable roots
//     setuid (SPEC §4.2). Nothing a command legitimately runs needs
//     a setuid bit, and only the sidecar's user's files could get one.
//
// A syscall made through another architecture's entry point kills the
// process.
func assembleFilter(k filterKind) []unix.SockFilter {
	const (
		ld   = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jge  = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		jset = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
		ret  = unix.BPF_RET | unix.BPF_K
	)
	var a bpfAsm
	a.stmt(ld, seccompArch)
	a.jump(jeq, auditArch, "", "kill")
	a.stmt(ld, seccompNr)
	if x32SyscallBit != 0 {
		a.jump(jge, x32SyscallBit, "enosys", "")
	}
	for _, nr := range keyringSyscalls {
		a.jump(jeq, nr, "enosys", "")
	}
	for _, nr := range slices.Sorted(maps.Keys(modeSyscalls)) {
		a.jump(jeq, nr, fmt.Sprintf("mode-arg%d", modeSyscalls[nr]), "")
	}
	if k != filterNetOn {
		a.jump(jeq, unix.SYS_SOCKET, "", "not-socket")
		if k == filterNetOffUnix {
			a.stmt(ld, seccompArg0)
			a.jump(jeq, unix.AF_UNIX, "allow", "eacces")
		} else {
			a.stmt(ret, unix.SECCOMP_RET_ERRNO|uint32(unix.EACCES))
		}
		a.label("not-socket")
		a.jump(jeq, unix.SYS_IO_URING_SETUP, "enosys", "allow")
	}
	a.label("allow")
	a.stmt(ret, unix.SECCOMP_RET_ALLOW)
	for _, arg := range []int{1, 2} {
		a.label(fmt.Sprintf("mode-arg%d", arg))
		a.stmt(ld, seccompArg0+8*uint32(arg))
		a.jump(jset, setidBits, "eperm", "mode-allow")
	}
	a.label("mode-allow") // forward jumps only: "allow" is behind
	a.stmt(ret, unix.SECCOMP_RET_ALLOW)
	a.label("eperm")
	a.stmt(ret, unix.SECCOMP_RET_ERRNO|uint32(unix.EPERM))
	a.label("eacces")
	a.stmt(ret, unix.SECCOMP_RET_ERRNO|uint32(unix.EACCES))
	a.label("enosys")
	a.stmt(ret, unix.SECCOMP_RET_ERRNO|uint32(unix.ENOSYS))
	a.label("kill")
	a.stmt(ret, unix.SECCOMP_RET_KILL_PROCESS)
	return a.assemble()
}

// bpfAsm assembles a classic BPF program with forward jumps to labels ("" =
// the next instruction).
type bpfAsm struct {
	prog   []unix.SockFilter
	labels map[string]int
	fixups []bpfFixup
}

type bpfFixup struct {
	at     int
	jt, jf string
}

func (a *bpfAsm) stmt(code uint16, k uint32) {
	a.prog = append(a.prog, unix.SockFilter{Code: code, K: k})
}

func (a *bpfAsm) jump(code uint16, k uint32, jt, jf string) {
	a.fixups = append(a.fixups, bpfFixup{at: len(a.prog), jt: jt, jf: jf})
	a.stmt(code, k)
}

func (a *bpfAsm) label(name string) {
	if a.labels == nil {
		a.labels = map[string]int{}
	}
	a.labels[name] = len(a.prog)
}

func (a *bpfAsm) assemble() []unix.SockFilter {
	off := func(from int, label string) uint8 {
		if label == "" {
			return 0
		}
		to, ok := a.labels[label]
		if !ok || to <= from || to-from-1 > 255 {
			panic("seccomp: bad jump to " + label)
		}
		return uint8(to - from - 1)
	}
	for _, f := range a.fixups {
		a.prog[f.at].Jt = off(f.at, f.jt)
		a.prog[f.at].Jf = off(f.at, f.jf)
	}
	return a.prog
}
