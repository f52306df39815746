package runcode

import (
	"fmt"
	"os"
	"sync"
)

// channels are the pipes between the sidecar and one child: the bridge on
// fds 3 (child → sidecar) and 4 (sidecar → child), and stdin, which holds
// the compiled runner. stdout and stderr are the sandbox's (captured).
type channels struct {
	fromChild, childOut *os.File // fd 3: the sidecar reads what the child writes
	childIn, toChild    *os.File // fd 4: the child reads what the sidecar writes
	runner, toRunner    *os.File // stdin: the runner, then EOF
	code                []byte
	writers             sync.WaitGroup
}

// openChannels makes the pipes; serve fills them.
func openChannels(code []byte) (*channels, error) {
	ch := &channels{}
	var err error
	if ch.fromChild, ch.childOut, err = os.Pipe(); err != nil {
		return nil, fmt.Errorf("creating the bridge: %w", err)
	}
	if ch.childIn, ch.toChild, err = os.Pipe(); err != nil {
		ch.close()
		return nil, fmt.Errorf("creating the bridge: %w", err)
	}
	if ch.runner, ch.toRunner, err = os.Pipe(); err != nil {
		ch.close()
		return nil, fmt.Errorf("creating the runner's pipe: %w", err)
	}
	ch.code = code
	return ch, nil
}

// serve writes the runner to stdin and the start message to fd 4 (each
// may exceed a pipe's buffer: the child reads them as it starts), then
// serves the bridge until the child's done, a violation or the end of the
// stream. The channel closes when the writers and the bridge are finished.
func (ch *channels) serve(b *bridge, startMsg []byte) <-chan struct{} {
	ch.writers.Add(2)
	go func() {
		defer ch.writers.Done()
		ch.toRunner.Write(ch.code) // fails only when the child is gone
		ch.toRunner.Close()
	}()
	go func() {
		defer ch.writers.Done()
		b.write(startMsg)
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
	for _, f := range []*os.File{ch.fromChild, ch.toChild, ch.toRunner} {
		if f != nil {
			f.Close()
		}
	}
}
