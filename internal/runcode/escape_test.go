package runcode

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The guard is not the wall. A program that defeats it (through object's
// subclasses to os and the real __import__) still cannot write outside its
// temp dir — not even the workspace, which it writes through tools — reach
// the network or a local socket, read the planted credentials, or see the
// sidecar's keys: the sandbox stops it, under every backend.
func TestGuardDefeatingProgramIsStoppedByTheSandbox(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			e := session(t, backend)
			outside, err := os.MkdirTemp("/var/tmp", "runcode-outside-")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(outside)
			ln, err := net.Listen("tcp4", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			var accepted atomic.Int32
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					accepted.Add(1)
					c.Close()
				}
			}()
			code := osEscape + fmt.Sprintf(`socket = b["__import__"]("socket")
out = {}
def attempt(name, fn):
    try:
        fn()
        out[name] = "allowed"
    except Exception as e:
        out[name] = "denied"
def write(path):
    fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o644)
    os.write(fd, b"pwned")
    os.close(fd)
def read(path):
    fd = os.open(path, os.O_RDONLY)
    data = os.read(fd, 100)
    os.close(fd)
    if b"PLANTED" not in data:
        raise OSError("not the planted file")
attempt("write outside", lambda: write(%[1]q + "/pwned"))
attempt("write the workspace", lambda: write(%[2]q + "/pwned"))
attempt("write its temp dir", lambda: write(os.environ["TMPDIR"] + "/scratch"))
attempt("read ~/.ssh", lambda: read(%[3]q + "/.ssh/id_ed25519"))
attempt("read ~/.aws", lambda: read(%[3]q + "/.aws/credentials"))
attempt("connect", lambda: socket.create_connection(("127.0.0.1", %[4]d), 2))
attempt("unix socket", lambda: socket.socket(socket.AF_UNIX))
attempt("see the key", lambda: [v for v in os.environ.values() if "sk-planted" in v][0])
attempt("run a shell", lambda: os.system("true") == 0 or 1 / 0)
return out`, outside, e.ws, e.home, ln.Addr().(*net.TCPAddr).Port)
			got := value(t, e.run(t, code, nil))
			want := map[string]any{"write outside": "denied", "write the workspace": "denied", "write its temp dir": "allowed",
				"read ~/.ssh": "denied", "read ~/.aws": "denied", "connect": "denied", "unix socket": "denied",
				"see the key": "denied", "run a shell": "allowed"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			for _, p := range []string{filepath.Join(outside, "pwned"), filepath.Join(e.ws, "pwned")} {
				if _, err := os.Stat(p); err == nil {
					t.Errorf("%s was written", p)
				}
			}
			if n := accepted.Load(); n != 0 {
				t.Errorf("the listener accepted %d connections", n)
			}
		})
	}
}

// The command line carries no program (it travels over the bridge, the
// runner over stdin) and a call id only as safe, bounded text: a NUL
// would make exec fail, and the host chooses ids.
func TestChildCommandLineIsShortAndSafe(t *testing.T) {
	argv := Argv("/usr/bin/python3", "call-1\x00; rm -rf /"+strings.Repeat("x", 300))
	want := []string{"/usr/bin/python3", "-I", "-S", "-B", "-c", Bootstrap, "run_code", "call-1___rm_-rf_/" + strings.Repeat("x", 200-17)}
	if diff := cmp.Diff(want, argv); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := Argv("p", "")[7]; got != "-" {
		t.Errorf("empty id became %q", got)
	}
}

// The same attack through a real interpreter, under every backend: the
// program defeats the guard, writes a 5 MB done frame to fd 3 itself and
// exits before the runner could check anything.
func TestRawOversizedDoneFrameIsRefused(t *testing.T) {
	for _, backend := range backends {
		t.Run(backend, func(t *testing.T) {
			e := session(t, backend)
			code := osEscape + `os.write(3, b'{"v":1,"type":"done","ok":true,"value":"' + b"x" * (5 << 20) + b'"}\n')
os._exit(0)`
			out := e.run(t, code, nil)
			d := out.Done
			if d == nil || d.OK || d.Kind != KindResult || d.Value != nil ||
				!strings.Contains(d.Error, "over the limit of 1048576 (STEERABLE_RUN_CODE_MAX_RESULT_BYTES)") {
				t.Errorf("done %+v (stopped %v)", d, out.Stopped)
			}
		})
	}
}
