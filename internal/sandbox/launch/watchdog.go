package launch

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"
)

// The watchdog closes the gap a SIGKILLed sidecar leaves where the kernel
// has no parent-death signal and no PID namespace (macOS, the BSDs): a
// small process, the sidecar binary re-executed at boot through the hidden
// WatchdogCommand (before any command ran, so a binary in the workspace
// cannot have been replaced yet), in a process group of its own, reading
// a pipe from the sidecar. The sidecar writes "+G" when a child leading
// process group G starts and "-G" when it is reaped. When the pipe reaches
// end of file — the sidecar exited, however it died, since the kernel
// closes the write end — the watchdog SIGKILLs every group still listed
// and exits. A process that left its group (setsid) is not covered. Linux
// needs none (the PID namespace), Windows none (the Job Object).

// WatchdogCommand is the hidden subcommand of the watchdog. It is not
// listed in --help.
const WatchdogCommand = "__sandbox-watchdog"

// WatchdogMain is the watchdog: it reads r until end of file, then kills
// the groups still listed.
func WatchdogMain(r io.Reader) int {
	killGroups(watchGroups(r))
	return 0
}

// watchGroups reads "+G" and "-G" lines until end of file and returns the
// groups added and not removed. Anything else is ignored.
func watchGroups(r io.Reader) []int {
	live := map[int]bool{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if len(line) < 2 {
			continue
		}
		g, err := strconv.Atoi(line[1:])
		if err != nil || g <= 1 {
			continue
		}
		switch line[0] {
		case '+':
			live[g] = true
		case '-':
			delete(live, g)
		}
	}
	out := make([]int, 0, len(live))
	for g := range live {
		out = append(out, g)
	}
	return out
}

// watchdog is the sidecar's end of the pipe; a nil one does nothing.
type watchdog struct {
	mu   sync.Mutex
	w    io.WriteCloser
	done chan struct{} // closed when the watchdog process has been reaped
}

func (d *watchdog) add(group int)    { d.send('+', group) }
func (d *watchdog) remove(group int) { d.send('-', group) }

func (d *watchdog) send(op byte, group int) {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	fmt.Fprintf(d.w, "%c%d\n", op, group) // a dead watchdog: nothing to do
}

// close ends the watchdog — with every child already killed, it has
// nothing left to kill — and waits a moment for it to exit.
func (d *watchdog) close() {
	if d == nil {
		return
	}
	d.mu.Lock()
	d.w.Close()
	d.mu.Unlock()
	select {
	case <-d.done:
	case <-time.After(time.Second):
	}
}
