//go:build unix

package launch

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// The watchdog, started from this test binary as the sandbox starts it on
// macOS, SIGKILLs the groups still listed when its pipe closes (the
// sidecar died), and leaves alone a group that was removed.
func TestWatchdogKillsListedGroupsAtEOF(t *testing.T) {
	d := startWatchdog(os.Args[0])
	if d == nil {
		t.Fatal("the watchdog did not start")
	}
	listed, removed := groupSleep(t), groupSleep(t)
	d.add(listed.Process.Pid)
	d.add(removed.Process.Pid)
	d.remove(removed.Process.Pid)
	d.close() // what the kernel does when the sidecar is SIGKILLed
	done := make(chan error, 1)
	go func() { done <- listed.Wait() }()
	select {
	case err := <-done:
		if ws, ok := listed.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
			t.Errorf("listed group ended with %v, not SIGKILL", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the listed group outlived the watchdog's end of file")
	}
	if err := syscall.Kill(removed.Process.Pid, 0); err != nil {
		t.Errorf("the removed group was killed too: %v", err)
	}
	// close waits only a moment for the watchdog's exit; the test waits
	// for its reaper, so goleak never sees it on a loaded machine.
	select {
	case <-d.done:
	case <-time.After(waitBound):
		t.Fatal("the watchdog did not exit after its pipe closed")
	}
}

// waitBound bounds a wait that only a failure reaches.
const waitBound = 2 * time.Minute

// groupSleep starts a sleep leading a process group of its own, killed at
// the end of the test.
func groupSleep(t *testing.T) *exec.Cmd {
	cmd := exec.Command("sleep", "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if cmd.ProcessState == nil {
			cmd.Wait()
		}
	})
	return cmd
}
