//go:build linux

package sandbox

import (
	"fmt"
	"strings"
	"testing"
)

// The attack: a command opens a terminal that is not its own by name —
// the pts of the user's shell, to read what is typed there or to type
// into it — or a virtual console. Under bwrap the fresh /dev has none;
// under Landlock the ruleset denies them, while a command on a terminal
// of its own still opens it by name and as /dev/tty.
func TestOtherTerminalsAreClosed(t *testing.T) {
	_, other := openPTY(t)
	victim := other.Name()
	for _, name := range confining {
		t.Run(name, func(t *testing.T) {
			s := openSandbox(t, name, false)
			script := fmt.Sprintf(`for d in %s /dev/tty1 /dev/console /dev/vcs1; do
				[ -c "$d" ] || continue # bwrap's /dev: a name written creates a file there
				(: < "$d") 2>/dev/null && echo "read $d"
				(: >> "$d") 2>/dev/null && echo "wrote $d"
			done; echo done`, victim)
			res := run(t, s, script, RunOptions{})
			if res.Stdout != "done\n" {
				t.Errorf("the command opened another terminal: %q (stderr %q)", res.Stdout, res.Stderr)
			}
			leader, own := openPTY(t)
			p, err := s.Start(Command{Argv: []string{"bash", "-c", `echo by-name > "$(tty)" && echo by-tty > /dev/tty && (: < ` + victim + `) 2>/dev/null || echo other-refused; read -r _`},
				Dir: s.Policy().WritableRoots[0], TTY: own})
			if err != nil {
				t.Fatal(err)
			}
			own.Close()
			got := readUntil(t, leader, "other-refused")
			leader.Write([]byte("\n")) // the command waits for it, so nothing it printed is lost
			p.Wait()
			for _, want := range []string{"by-name", "by-tty", "other-refused"} {
				if !strings.Contains(got, want) {
					t.Errorf("own terminal: %q lacks %q", got, want)
				}
			}
		})
	}
}
