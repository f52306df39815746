package benchkit

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"
)

// closeWait bounds how long Close waits for a child to exit once its stdin
// is closed; then the child is killed.
var closeWait = 5 * time.Second

// Proc is a child process driven over newline-delimited JSON-RPC 2.0 on its
// stdin and stdout, the way a host drives the sidecar. Its stderr is what the
// caller set on the command before the start (nil discards it). A Proc is
// used by one goroutine at a time.
type Proc struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	pipes  []io.Closer    // our ends of the child's output pipes, closed on a kill
	drains sync.WaitGroup // readers of those pipes other than out
	lastID int
	frame  []byte // the frame being written, reused: one write per frame
}

// Start starts cmd with its stdin and stdout connected to the returned Proc.
func Start(cmd *exec.Cmd) (*Proc, error) {
	p, err := attach(cmd)
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	return p, nil
}

// attach creates the stdin and stdout pipes of cmd; the caller starts it.
func attach(cmd *exec.Cmd) (*Proc, error) {
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		in.Close()
		return nil, err
	}
	return &Proc{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20), pipes: []io.Closer{out}}, nil
}

// Pid is the child's process id.
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Call sends a request (params nil: none) and returns the result of the
// reply with its id; an error reply is returned as an error.
func (p *Proc) Call(method string, params any) (json.RawMessage, error) {
	req, err := newRequest(method, params)
	if err != nil {
		return nil, err
	}
	id, err := p.send(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	_, m, err := p.await(method, id, true)
	if err != nil {
		return nil, err
	}
	res, err := m.outcome()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	return res, nil
}

// Notify sends a notification (params nil: none).
func (p *Proc) Notify(method string, params any) error {
	req, err := newRequest(method, params)
	if err != nil {
		return err
	}
	p.frame = appendNotification(p.frame[:0], req)
	_, err = p.in.Write(p.frame)
	return err
}

// AwaitNotification reads frames until a notification of method arrives;
// everything before it is dropped.
func (p *Proc) AwaitNotification(method string) error {
	for {
		line, err := p.readLine()
		if err != nil {
			return fmt.Errorf("awaiting %s: %w", method, err)
		}
		if h, ok := peek(line); ok && h.ID == nil && h.Method != nil && *h.Method == method {
			return nil
		}
	}
}

// send writes req with the next id and returns that id.
func (p *Proc) send(req request) (int, error) {
	p.lastID++
	p.frame = appendCall(p.frame[:0], p.lastID, req)
	_, err := p.in.Write(p.frame)
	return p.lastID, err
}

// await reads frames until the reply to id, skipping notifications, server
// requests, replies to other ids and lines that are not JSON-RPC. With whole
// set each frame is decoded whole, result and error in the same pass; the
// timed loops leave it unset, so only headers are decoded, and decode the
// returned line once their clock has stopped.
func (p *Proc) await(method string, id int, whole bool) ([]byte, message, error) {
	for {
		line, err := p.readLine()
		if err != nil {
			return nil, message{}, fmt.Errorf("%s: awaiting reply %d: %w", method, id, err)
		}
		var m message
		ok := false
		if whole {
			m, ok = decode(line)
		} else {
			m.header, ok = peek(line)
		}
		if !ok {
			continue
		}
		switch m.kind() {
		case orphan:
			return line, m, fmt.Errorf("%s: %s", method, line)
		case reply:
			if *m.ID == id {
				return line, m, nil
			}
		}
	}
}

func (p *Proc) readLine() ([]byte, error) {
	line, err := p.out.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.cmd.Path, err)
	}
	return line, nil
}

// drain discards what the child writes on r until it closes, so that the
// child never blocks on a full pipe nobody reads.
func (p *Proc) drain(r io.ReadCloser) {
	p.pipes = append(p.pipes, r)
	p.drains.Add(1)
	go func() {
		defer p.drains.Done()
		io.Copy(io.Discard, r)
	}()
}

// Close closes the child's stdin, which asks a JSON-RPC server to exit,
// reads what is left of its output and waits for it. A child still running
// after closeWait is killed.
func (p *Proc) Close() error {
	p.in.Close()
	done := make(chan error, 1)
	go func() {
		io.Copy(io.Discard, p.out)
		p.drains.Wait()
		done <- p.cmd.Wait()
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(closeWait):
		p.cmd.Process.Kill()
		// A grandchild may still hold the output pipes open: close our ends
		// so the readers above return.
		for _, c := range p.pipes {
			c.Close()
		}
		return <-done
	}
}
