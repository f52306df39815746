//go:build unix

package launch

import (
	"os"
	"os/exec"
	"syscall"
)

// startWatchdog starts exe as the watchdog, in a process group of its own
// (a signal to the sidecar's group does not end it early), ignoring the
// signals a terminal sends; nil when it cannot start (the children then
// have the platform's plain guarantee).
func startWatchdog(exe string) *watchdog {
	r, w, err := os.Pipe()
	if err != nil {
		return nil
	}
	defer r.Close()
	cmd := exec.Command(exe, WatchdogCommand)
	cmd.Stdin = r
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil
	}
	d := &watchdog{w: w, done: make(chan struct{})}
	go func() { cmd.Wait(); close(d.done) }()
	return d
}

func killGroups(groups []int) {
	for _, g := range groups {
		_ = syscall.Kill(-g, syscall.SIGKILL)
	}
}
