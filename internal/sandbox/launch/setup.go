package launch

import (
	"errors"
	"fmt"
)

// Setup is how Open sets a launcher up; the zero value is what a session
// uses. The fields are for tests: Modes replaces the modes tried (a kernel
// without user namespaces), NoCgroups leaves cgroups out (the rlimit
// fallbacks), NoSharedNet leaves the session's empty network namespace
// out (bwrap then makes one per child).
type Setup struct {
	Modes       []Mode
	NoCgroups   bool
	NoSharedNet bool
}

// Open sets the launcher up before its first child: the watchdog (before
// any command runs: watchdog.go), the cgroups, the strongest mode that
// starts truePath here (a trusted true; trueErr says why there is none),
// and the session's empty network namespace. modeErrs say why each
// stronger mode failed ("mode: error"); cgroupErr why children get no
// cgroups.
func (l *Launcher) Open(setup Setup, truePath string, trueErr error) (modeErrs []error, cgroupErr error) {
	l.startWatchdog()
	if setup.NoCgroups {
		cgroupErr = errors.New("left out")
	} else {
		cgroupErr = l.useCgroups()
	}
	modeErrs = l.selectMode(setup.Modes, truePath, trueErr)
	if !setup.NoSharedNet {
		_ = l.openSharedNet() // else bwrap makes one per child, as safe
	}
	return modeErrs, cgroupErr
}

// selectMode keeps the first of modes (nil: candidateModes) that starts
// truePath here.
func (l *Launcher) selectMode(modes []Mode, truePath string, trueErr error) []error {
	if modes == nil {
		modes = candidateModes()
	}
	var errs []error
	for _, m := range modes {
		err := trueErr
		if err == nil {
			err = l.probeMode(m, truePath)
		}
		if err == nil {
			l.mode = m
			return errs
		}
		errs = append(errs, fmt.Errorf("%s: %w", m, err))
	}
	l.mode = Mode{}
	return errs
}
