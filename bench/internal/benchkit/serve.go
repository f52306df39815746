package benchkit

import (
	"os"
	"os/exec"
)

// Sidecar is a live `serve` of the binary under test, in a scratch
// directory of its own (its workspace), with the bench's environment plus
// a few variables.
type Sidecar struct {
	*Proc
	Dir string
}

// StartSidecar starts bin quietly (ready marker off, errors only) in a new
// scratch directory named after name, with env added to the environment.
func StartSidecar(bin, name string, env ...string) (*Sidecar, error) {
	dir, err := os.MkdirTemp("", "bench-"+name+"-")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--quiet-ready", "--log-level", "error")
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = dir
	p, err := Start(cmd)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &Sidecar{Proc: p, Dir: dir}, nil
}

// Close ends the sidecar and removes its directory.
func (s *Sidecar) Close() error {
	err := s.Proc.Close()
	os.RemoveAll(s.Dir)
	return err
}
