package sandbox

import (
	"io"

	"steerable.dev/sidecar/internal/sandbox/launch"
)

// What Start and Run hand back, and the session's resources, are the
// launcher's (package launch): the tools and cmd see them under these
// names, so that sandbox stays the one package they import.
type (
	// Process is a started child (launch.Process).
	Process = launch.Process
	// Exit is how a child ended (launch.Exit).
	Exit = launch.Exit
	// RunOptions bound one Run (launch.RunOptions).
	RunOptions = launch.RunOptions
	// Result is how a Run ended (launch.Result).
	Result = launch.Result
	// Lifetime names the kernel mechanism that ends a child's whole tree
	// (launch.Lifetime).
	Lifetime = launch.Lifetime
)

// The lifetime guarantees, strongest first (launch.Lifetime).
const (
	LifetimePIDNamespace = launch.LifetimePIDNamespace
	LifetimeCgroup       = launch.LifetimeCgroup
	LifetimeSubreaper    = launch.LifetimeSubreaper
	LifetimeJob          = launch.LifetimeJob
	LifetimeGroup        = launch.LifetimeGroup
)

// NewSessionDir creates the per-session temp dir under parent
// (launch.NewSessionDir).
func NewSessionDir(parent string) (string, error) { return launch.NewSessionDir(parent) }

// RemoveTree removes dir like the session temp dir is removed: even when a
// child left directories without write permission in it (run_code's
// per-call dirs).
func RemoveTree(dir string) error { return launch.RemoveTree(dir) }

// WatchdogCommand is the hidden subcommand of the watchdog
// (launch/watchdog.go). It is not listed in --help.
const WatchdogCommand = launch.WatchdogCommand

// WatchdogMain is the watchdog: it reads r until end of file, then kills
// the groups still listed.
func WatchdogMain(r io.Reader) int { return launch.WatchdogMain(r) }
