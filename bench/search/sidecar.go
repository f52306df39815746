package main

import (
	"fmt"
	"os"
	"os/exec"
	"time"

	"steerable.dev/sidecar/bench/internal/benchkit"
)

// spawn starts bin and waits for the ready marker; ready is the time from
// the start to the marker.
func spawn(bin string) (s *benchkit.Proc, ready time.Duration, err error) {
	cmd := exec.Command(bin, "--log-level", "error")
	cmd.Env = append(os.Environ(), "STEERABLE_WORKSPACE="+os.TempDir())
	return benchkit.StartReady(cmd)
}

// toolSearch runs tool_search as a tool.invoke round trip and checks it worked.
func toolSearch(s *benchkit.Proc, query string) error {
	if _, err := s.Invoke("tool_search", map[string]any{"query": query}); err != nil {
		return fmt.Errorf("tool_search %q failed: %w", query, err)
	}
	return nil
}
