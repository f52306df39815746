//go:build !linux

package launch

import "errors"

// OpenSharedNet: network namespaces are Linux's (netns_linux.go).
func (l *Launcher) OpenSharedNet() error { return errors.New("no network namespaces here") }

func (l *Launcher) closeSharedNet() {}
