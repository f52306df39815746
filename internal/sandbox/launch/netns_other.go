//go:build !linux

package launch

import "errors"

// sharedNet is Linux's (netns_linux.go).
type sharedNet struct{}

// SharedNet is false: no network namespace here.
func (l *Launcher) SharedNet() bool { return false }

// openSharedNet: network namespaces are Linux's (netns_linux.go).
func (l *Launcher) openSharedNet() error { return errors.New("no network namespaces here") }

func (l *Launcher) closeSharedNet() {}
