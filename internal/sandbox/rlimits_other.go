//go:build !linux

package sandbox

// rlimitFallbacks: no rlimit stands in for a limit outside Linux (a
// Windows job holds its own; macOS enforces none), so none is inferred.
func (l *launcher) rlimitFallbacks(Limits) rlimitFallbacks { return rlimitFallbacks{} }

func treeTasks(int) int { return -1 }
