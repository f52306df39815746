//go:build !linux

package launch

// spawner is Linux's pool of launch threads (spawner_linux.go); elsewhere
// a child's lifetime is not tied to the thread that started it.
type spawner struct{}

func (*spawner) close() {}
