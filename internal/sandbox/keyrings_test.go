//go:build linux && (amd64 || arm64)

package sandbox

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// keyringProbe tries, from inside, every way to the sidecar's keys with
// raw syscalls (no keyutils needed): the session keyring's id, a search
// of the session and user keyrings for $1, a read of the key by its serial
// $2, a request_key and an add_key. It prints one "name=result" per try,
// the result being the syscall's value or errno's name.
const keyringProbe = `python3 - "$1" "$2" <<'PY'
import ctypes, errno, platform, sys
add, req, ctl = {"x86_64": (248, 249, 250), "aarch64": (217, 218, 219)}[platform.machine()]
libc = ctypes.CDLL(None, use_errno=True)
desc, serial = sys.argv[1].encode(), int(sys.argv[2])
buf = ctypes.create_string_buffer(256)
def show(name, r):
    print(f"{name}={r if r >= 0 else errno.errorcode[ctypes.get_errno()]}")
    if r > 0 and name == "read":
        print("payload=" + buf.raw[:r].decode())
show("session", libc.syscall(ctl, 0, -3, 0))
show("search-session", libc.syscall(ctl, 10, -3, b"user", desc, 0))
show("search-user", libc.syscall(ctl, 10, -4, b"user", desc, 0))
show("read", libc.syscall(ctl, 11, serial, buf, 256))
show("request", libc.syscall(req, b"user", desc, None, 0))
show("add", libc.syscall(add, b"user", b"planted", b"x", 1, -3))
PY`

// plantKey adds a user key to the sidecar's session keyring and to the
// user keyring, removed when the test ends, and checks that this process
// reaches it by a search (so a refusal inside means something).
func plantKey(t *testing.T) (desc string, serial int) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	desc = fmt.Sprintf("steerable-test-%s", uniqueMarker(t))
	for _, ring := range []int{unix.KEY_SPEC_SESSION_KEYRING, unix.KEY_SPEC_USER_KEYRING} {
		id, err := unix.AddKey("user", desc, []byte("KEYRING-SECRET"), ring)
		if err != nil {
			t.Skipf("cannot add a key here: %v", err)
		}
		t.Cleanup(func() { unix.KeyctlInt(unix.KEYCTL_INVALIDATE, id, 0, 0, 0) })
		serial = id
	}
	if _, err := unix.KeyctlSearch(unix.KEY_SPEC_SESSION_KEYRING, "user", desc, 0); err != nil {
		t.Fatalf("the planted key is not in this process's session keyring: %v", err)
	}
	return desc, serial
}

// The attack: a command reads the keys of the sidecar's user — a key the
// sidecar's session holds (a Kerberos ticket, an ecryptfs passphrase, an
// SSH agent's) and the user keyring — by search, by serial or by
// request_key, or plants one. Under bwrap and Landlock every keyring
// syscall fails with ENOSYS; under every backend, none included, the
// command's session keyring is a fresh one, so it does not possess the
// sidecar's.
func TestKeyringsAreClosed(t *testing.T) {
	needPython(t)
	desc, serial := plantKey(t)
	ours, err := unix.KeyctlGetKeyringID(unix.KEY_SPEC_SESSION_KEYRING, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range append([]string{"none"}, confining...) {
		t.Run(name, func(t *testing.T) {
			s := openSandbox(t, name, false)
			res := run(t, s, fmt.Sprintf("set -- %q %d\n", desc, serial)+keyringProbe, RunOptions{})
			if res.ExitCode != 0 {
				t.Fatalf("probe failed: %+v", res)
			}
			got := map[string]string{}
			for _, line := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
				k, v, _ := strings.Cut(line, "=")
				got[k] = v
			}
			if strings.Contains(res.Stdout, "KEYRING-SECRET") || got["search-session"] != "ENOKEY" && got["search-session"] != "ENOSYS" {
				t.Errorf("the command reached the sidecar's session key: %s", res.Stdout)
			}
			if got["session"] == fmt.Sprint(ours) {
				t.Errorf("the command holds the sidecar's session keyring %d: %s", ours, res.Stdout)
			}
			if name == "none" {
				return
			}
			for _, try := range []string{"session", "search-session", "search-user", "read", "request", "add"} {
				if got[try] != "ENOSYS" {
					t.Errorf("%s: got %q, want ENOSYS (the seccomp filter)", try, got[try])
				}
			}
		})
	}
}
