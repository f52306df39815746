// Package prompt asks ask_user's questions on a terminal. It is the handler
// the `call` subcommand injects in place of the host's ask_user.request
// (tools-spec "ask_user": a CLI embedder injects a terminal prompt).
//
// # Terminal handling
//
// The questions go to the controlling terminal (/dev/tty), never to stdout,
// which carries the ToolResult. The terminal is put in raw mode for the
// session and read through golang.org/x/term's line editor, which hides
// password input; its state is restored however the session ends. Ctrl-C
// and Ctrl-D cancel the questions (the result is cancelled:true, not an
// error). Reads go through the *os.File with deadlines rather than through
// a blocking read on the raw descriptor, so a cancelled context (SIGTERM, the
// ask_user timeout) interrupts a pending prompt at once instead of leaving a
// goroutine blocked on the terminal.
package prompt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"golang.org/x/term"

	"steerable.dev/sidecar/internal/askuser"
	"steerable.dev/sidecar/protocol"
)

// Terminal is an askuser.Handler that prompts on a terminal. Calls are
// serialised: one set of questions at a time.
type Terminal struct {
	mu   sync.Mutex
	open func() (f *os.File, release func(), err error)
}

// NewTTY prompts on the controlling terminal, opened at each call (a call
// that never asks never touches the terminal).
func NewTTY() *Terminal {
	return &Terminal{open: func() (*os.File, func(), error) {
		f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
		if err != nil {
			return nil, nil, err
		}
		return f, func() { f.Close() }, nil
	}}
}

// New prompts on f, which must be a terminal; the caller keeps closing it.
func New(f *os.File) *Terminal {
	return &Terminal{open: func() (*os.File, func(), error) { return f, func() {}, nil }}
}

// AskUser implements askuser.Handler.
func (t *Terminal) AskUser(ctx context.Context, req protocol.AskUserRequestParams) (protocol.AskUserRequestResult, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f, release, err := t.open()
	if err != nil {
		return protocol.AskUserRequestResult{}, fmt.Errorf("no terminal to ask the user on: %w", err)
	}
	defer release()
	s, err := startSession(ctx, f)
	if err != nil {
		return protocol.AskUserRequestResult{}, err
	}
	defer s.close()
	return s.ask(req)
}

// session is one raw-mode conversation on the terminal.
type session struct {
	ctx   context.Context
	f     *os.File
	fd    int
	saved *term.State
	line  *term.Terminal
	stop  func() bool
}

func startSession(ctx context.Context, f *os.File) (*session, error) {
	fd, err := descriptor(f)
	if err != nil || !term.IsTerminal(fd) {
		return nil, fmt.Errorf("no terminal to ask the user on: %s is not a terminal", f.Name())
	}
	saved, err := term.MakeRaw(fd)
	if err != nil {
		return nil, fmt.Errorf("terminal %s: %w", f.Name(), err)
	}
	// A deadline left by an earlier cancelled session would fail the first
	// read; clear it, then let ctx set one in the past to interrupt a read.
	f.SetReadDeadline(time.Time{})
	s := &session{ctx: ctx, f: f, fd: fd, saved: saved, line: term.NewTerminal(f, "")}
	s.stop = context.AfterFunc(ctx, func() { f.SetReadDeadline(time.Now()) })
	if w, h, err := term.GetSize(fd); err == nil && w > 0 {
		s.line.SetSize(w, h)
	}
	return s, nil
}

// descriptor returns f's descriptor without f.Fd(), which would switch f to
// blocking mode and disable the read deadlines.
func descriptor(f *os.File) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return -1, err
	}
	fd := -1
	if err := rc.Control(func(d uintptr) { fd = int(d) }); err != nil {
		return -1, err
	}
	return fd, nil
}

func (s *session) close() {
	s.stop()
	term.Restore(s.fd, s.saved)
}

// errInterrupted is Ctrl-C or Ctrl-D at a prompt (x/term reports both as
// io.EOF).
var errInterrupted = errors.New("interrupted at the terminal")

var _ askuser.Handler = (*Terminal)(nil)
