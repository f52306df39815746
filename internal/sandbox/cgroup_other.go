//go:build !linux

package sandbox

import "errors"

// Cgroups are Linux's; elsewhere the launcher has none, and Summary says
// what limits the platform enforces instead.

type cgroups struct{}

func openCgroups(string) (*cgroups, error) { return nil, errors.New("cgroups exist only on Linux") }

func (*cgroups) has(controller) bool { return false }

func (*cgroups) name() string { return "" }

func (*cgroups) note() string { return "" }

func (*cgroups) close() {}

type controller string

const (
	ctlMemory controller = "memory"
	ctlPids   controller = "pids"
)
