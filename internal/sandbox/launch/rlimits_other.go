//go:build !linux

package launch

// rlimitFallbacks: no rlimit stands in for a limit outside Linux (a
// Windows job holds its own; macOS enforces none), so none is inferred.
func (l *Launcher) rlimitFallbacks(Limits) rlimitFallbacks { return rlimitFallbacks{} }

func treeTasks(int) int { return -1 }
