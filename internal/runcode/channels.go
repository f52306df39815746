package runcode

import (
	"fmt"
	"os"
	"sync"
)

// channels are the pipes between the sidecar and one child: the bridge on
// fds 3 (child → sidecar) and 4 (sidecar → child), and stdin, which holds
// the runner script. stdout and stderr are the sandbox's (captured).
type channels struct {
	fromChild, childOut *os.File // fd 3: the sidecar reads what the child writes
	childIn, toChild    *os.File // fd 4: the child reads what the sidecar writes
	runner              *os.File // stdin: the runner, then EOF
	writers             sync.WaitGroup
}

// openChannels makes the pipes and fills stdin with the runner; it fits in
// a pipe's buffer (a test keeps it there), so nothing waits for the child.
func openChannels() (*channels, error) {
	ch := &channels{}
	var err error
	if ch.fromChild, ch.childOut, err = os.Pipe(); err != nil {
		return nil, fmt.Errorf("creating the bridge: %w", err)
	}
	if ch.childIn, ch.toChild, err = os.Pipe(); err != nil {
		ch.close()
		return nil, fmt.Errorf("creating the bridge: %w", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		ch.close()
		return nil, fmt.Errorf("creating the runner's pipe: %w", err)
	}
	ch.runner = r
	_, err = w.Write(runnerSource)
	w.Close()
	if err != nil {
		ch.close()
		return nil, fmt.Errorf("writing the runner: %w", err)
	}
	return ch, nil
}

// serve writes the start message, then serves the bridge until the child's
// done, a violation or the end of the stream. The channel closes when both
// the writer and the bridge are finished.
func (ch *channels) serve(b *bridge, startMsg []byte) <-chan struct{} {
	ch.writers.Add(1)
	go func() {
		defer ch.writers.Done()
		b.write(startMsg) // may exceed the pipe's buffer: the child reads it as it starts
	}()
	served := make(chan struct{})
	go func() {
		defer close(served)
		b.serve()
		ch.writers.Wait()
	}()
	return served
}

// closeChildEnds closes the sidecar's copies of the child's ends once the
// child (and everything it started) is gone: the bridge then reads to EOF,
// and writes to a child that stopped reading fail instead of blocking.
func (ch *channels) closeChildEnds() {
	for _, f := range []*os.File{ch.childOut, ch.childIn, ch.runner} {
		if f != nil {
			f.Close()
		}
	}
}

func (ch *channels) close() {
	ch.closeChildEnds()
	for _, f := range []*os.File{ch.fromChild, ch.toChild} {
		if f != nil {
			f.Close()
		}
	}
}
