package launch

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// nobody is the uid and gid of another user's leftovers.
const nobody = 65534

// TestMain lets the test binary be the watchdog, as the sidecar binary is
// (WatchdogCommand).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == WatchdogCommand {
		os.Exit(WatchdogMain(os.Stdin))
	}
	goleak.VerifyTestMain(m)
}
