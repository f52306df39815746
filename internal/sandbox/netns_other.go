//go:build !linux

package sandbox

import "errors"

// openSharedNet: network namespaces are Linux's (netns_linux.go).
func (l *launcher) openSharedNet() error { return errors.New("no network namespaces here") }

func (l *launcher) closeSharedNet() {}
