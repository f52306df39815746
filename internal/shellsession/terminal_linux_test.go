package shellsession

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestOpenPTYPairsLeaderAndFollower: the follower the leader opened
// (TIOCGPTPEER) is the terminal its name says, echo is off, and bytes
// written to it reach the leader, whose read takes a deadline.
func TestOpenPTYPairsLeaderAndFollower(t *testing.T) {
	leader, follower, err := openTerminal()
	if err != nil {
		t.Fatal(err)
	}
	defer leader.Close()
	defer follower.Close()
	n, ok := strings.CutPrefix(follower.Name(), "/dev/pts/")
	if !ok {
		t.Fatalf("follower named %q", follower.Name())
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(follower.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	if got := strconv.FormatUint(uint64(unix.Minor(st.Rdev)+256*(unix.Major(st.Rdev)-136)), 10); got != n {
		t.Errorf("follower is pts %s, named %s", got, n)
	}
	tio, err := unix.IoctlGetTermios(int(follower.Fd()), unix.TCGETS)
	if err != nil || tio.Lflag&unix.ECHO != 0 {
		t.Errorf("follower termios: echo %v, %v; want echo off", err == nil && tio.Lflag&unix.ECHO != 0, err)
	}
	if _, err := follower.Write([]byte("ping\n")); err != nil {
		t.Fatal(err)
	}
	leader.SetReadDeadline(time.Now().Add(time.Minute))
	buf := make([]byte, 64)
	k, err := leader.Read(buf)
	if err != nil || !strings.HasPrefix(string(buf[:k]), "ping") {
		t.Fatalf("leader read %q, %v", buf[:k], err)
	}
	leader.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
	if _, err := leader.Read(buf); !os.IsTimeout(err) {
		t.Errorf("a read with nothing to read: %v, want a timeout (the leader is in the poller)", err)
	}
}
