//go:build !linux

package launch

import "errors"

// Cgroups are Linux's; elsewhere the launcher has none, and Summary says
// what limits the platform enforces instead.

type cgroups struct{}

func openCgroups(string) (*cgroups, error) { return nil, errors.New("cgroups exist only on Linux") }

func (*cgroups) has(Controller) bool { return false }

func (*cgroups) name() string { return "" }

func (*cgroups) note() string { return "" }

func (*cgroups) close() {}

type Controller string

const (
	CtlMemory Controller = "memory"
	CtlPids   Controller = "pids"
)
