package shellsession

import (
	"context"
	"errors"
	"os"
	"sync"
	"time"
	"unicode/utf8"

	"steerable.dev/sidecar/internal/sandbox"
)

// session is one live shell: its process, the leader end of its terminal,
// and what it printed.
type session struct {
	id      string
	command string
	started time.Time
	proc    *sandbox.Process
	term    *os.File
	bufSize int

	turn chan struct{} // one slot: one exchange at a time
	done chan struct{} // closed once the shell exited and its output is all read

	mu           sync.Mutex
	changed      chan struct{} // closed and replaced on output and at the end
	strip        Stripper
	ring         *Ring
	raw          int64 // bytes read from the terminal
	lastOutput   time.Time
	marks        int
	atMark       Mark
	live         func(string, []byte) // the current exchange's progress sink
	lastActivity time.Time
	busy         int   // exchanges in progress
	readAt       int64 // ring offset of the last read
	readRaw      int64 // raw and marks at the last read: a poll's base
	readMarks    int
	exit         *sandbox.Exit // set once done
	shellPgrp    int           // the shell's process group, learnt at its first prompt
}

func newSession(id, command string, proc *sandbox.Process, term *os.File, bufSize int) *session {
	now := time.Now()
	s := &session{id: id, command: command, started: now, proc: proc, term: term, bufSize: bufSize,
		turn: make(chan struct{}, 1), done: make(chan struct{}), changed: make(chan struct{}),
		ring: NewRing(bufSize), lastActivity: now}
	go s.readLoop()
	go s.drainAfterExit()
	return s
}

// readLoop copies the terminal's output into the session until the
// terminal has no process left (EIO), then records the exit. It never
// stops reading while the shell lives: a program that prints is never
// blocked because nobody polls; the ring drops the oldest output instead.
func (s *session) readLoop() {
	buf := make([]byte, 32<<10)
	for {
		n, err := s.term.Read(buf)
		if n > 0 {
			s.ingest(buf[:n])
		}
		if err != nil {
			break
		}
	}
	s.proc.Kill() // no terminal left: nothing can reach the shell any more
	exit, _ := s.proc.Wait()
	s.term.Close()
	s.mu.Lock()
	s.exit = &exit
	s.notify()
	s.mu.Unlock()
	close(s.done)
}

// drainAfterExit bounds the read of what the shell left in the terminal
// once it exited: every process of the session is gone then, so the end of
// the terminal follows at once; the deadline only guards that.
func (s *session) drainAfterExit() {
	<-s.proc.Done()
	s.term.SetReadDeadline(time.Now().Add(time.Second))
}

func (s *session) ingest(p []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.raw += int64(len(p))
	s.lastOutput = time.Now()
	s.atMark = 0
	s.strip.Write(p, s.ring.Write, func(m Mark, at int) {
		s.marks++
		if at == len(p)-1 {
			s.atMark = m
		}
	})
	if s.live != nil {
		s.live(s.id, p)
	}
	s.notify()
}

// notify wakes every waiting read; s.mu is held.
func (s *session) notify() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// kill ends the shell and everything it started, and waits until its
// output is read.
func (s *session) kill() {
	s.proc.Kill()
	<-s.done
}

func (s *session) exited() (sandbox.Exit, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.exit == nil {
		return sandbox.Exit{}, false
	}
	return *s.exit, true
}

// awaitPrompt waits for the shell's first prompt (or its exit) until
// deadline, without taking its output, and learns the shell's process
// group: the terminal's foreground at that prompt.
func (s *session) awaitPrompt(ctx context.Context, deadline time.Time) {
	if s.wait(ctx, base{}, 1, deadline) != nil {
		return
	}
	v, _ := s.view(base{}, 1)
	if _, fg := terminalState(s.term); v.readsKeys && v.atMark == MarkPrompt {
		s.mu.Lock()
		s.shellPgrp = fg
		s.mu.Unlock()
	}
}

func (s *session) pgrp() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.shellPgrp
}

func (s *session) readsKeys() bool {
	keys, _ := terminalState(s.term)
	return keys
}

// exchange is one bash_session or write_stdin call: write chars, wait for
// the output to settle, return what is new.
func (s *session) exchange(ctx context.Context, req Request) (Result, error) {
	select {
	case s.turn <- struct{}{}:
	case <-ctx.Done():
		return Result{}, ctx.Err()
	}
	defer func() { <-s.turn }()
	s.begin(req.Live)
	defer s.end()
	deadline := time.Now().Add(req.Yield)
	base := s.pollBase()
	var res Result
	if req.Chars != "" {
		if exit, ok := s.exited(); ok {
			return Result{}, &ExitedError{ID: s.id, Exit: exit, Final: s.collect(req.MaxOutput)}
		}
		base = s.writeBase() // before the write: the answer may come before Write returns
		var err error
		if res.Unwritten, err = s.write(ctx, req.Chars, deadline); err != nil {
			return Result{}, err
		}
	}
	if err := s.wait(ctx, base, linesIn(req.Chars), deadline); err != nil {
		return Result{}, err
	}
	out := s.collect(req.MaxOutput)
	out.Unwritten = res.Unwritten
	return out, nil
}

func (s *session) begin(live func(string, []byte)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.busy++
	s.live = live
	s.lastActivity = time.Now()
}

func (s *session) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.busy--
	s.live = nil
	s.lastActivity = time.Now()
}

// writeMin is the least time a write gets, whatever yieldMs says, before
// the program counts as not reading its input.
const writeMin = time.Second

// write writes chars to the terminal and returns how many bytes it could
// not write before deadline (a program that does not read its input fills
// the terminal's buffer) or ctx ended.
func (s *session) write(ctx context.Context, chars string, deadline time.Time) (unwritten int, err error) {
	s.term.SetWriteDeadline(later(deadline, time.Now().Add(writeMin)))
	stop := context.AfterFunc(ctx, func() { s.term.SetWriteDeadline(time.Now()) })
	n, err := s.term.WriteString(chars)
	stop()
	s.term.SetWriteDeadline(time.Time{})
	switch {
	case ctx.Err() != nil:
		return 0, ctx.Err()
	case errors.Is(err, os.ErrDeadlineExceeded):
		return len(chars) - n, nil
	}
	return 0, nil // any other error: the terminal is gone, and the read reports the exit
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

type base struct {
	raw   int64
	marks int
}

func (s *session) pollBase() base {
	s.mu.Lock()
	defer s.mu.Unlock()
	return base{raw: s.readRaw, marks: s.readMarks}
}

func (s *session) writeBase() base {
	s.mu.Lock()
	defer s.mu.Unlock()
	return base{raw: s.raw, marks: s.marks}
}

// wait blocks until settle says the output has settled, or ctx ends.
func (s *session) wait(ctx context.Context, b base, want int, deadline time.Time) error {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var keys keyClock
	for {
		v, changed := s.view(b, want)
		now := time.Now()
		done, wake := settle(keys.observe(v, now), now, deadline)
		if done {
			return nil
		}
		timer.Reset(time.Until(wake))
		select {
		case <-changed:
		case <-timer.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (s *session) view(b base, want int) (view, <-chan struct{}) {
	s.mu.Lock()
	v := view{exited: s.exit != nil, fresh: s.raw > b.raw, quiet: time.Since(s.lastOutput),
		marks: s.marks - b.marks, want: want, atMark: s.atMark}
	changed := s.changed
	s.mu.Unlock()
	if !v.exited {
		v.readsKeys, v.fg = terminalState(s.term)
		v.shell = v.fg != 0 && v.fg == s.pgrp()
	}
	return v, changed
}

// collect takes everything since the last read, clipped to max characters.
func (s *session) collect(max int) Result {
	s.mu.Lock()
	text, dropped := s.ring.Since(s.readAt)
	s.readAt, s.readRaw, s.readMarks = s.ring.End(), s.raw, s.marks
	exit, atMark := s.exit, s.atMark
	s.mu.Unlock()
	if dropped > 0 {
		text = trimContinuation(text)
	}
	out, skipped := Clip(text, max)
	if dropped > 0 {
		out = droppedNote(dropped, s.bufSize) + out
	}
	res := Result{ID: s.id, Output: out, SkippedChars: skipped, DroppedBytes: dropped, State: StateRunning}
	switch {
	case exit != nil:
		res.Exited, res.ExitCode, res.State = true, exit.Code, StateExited
	case s.readsKeys():
		res.State = stateAt(atMark)
	}
	return res
}

// stateAt is the state of a terminal read key by key.
func stateAt(m Mark) State {
	switch m {
	case MarkPrompt:
		return StatePrompt
	case MarkContinuation:
		return StateContinuation
	}
	return StateInput
}

// trimContinuation drops the tail of a character the ring cut in half.
func trimContinuation(b []byte) []byte {
	for i := 0; i < utf8.UTFMax && i < len(b); i++ {
		if utf8.RuneStart(b[i]) {
			return b[i:]
		}
	}
	return b
}

// info is the session as session.list shows it.
func (s *session) info() Info {
	s.mu.Lock()
	defer s.mu.Unlock()
	in := Info{ID: s.id, Command: s.command, StartedAt: s.started, LastActivity: s.lastActivity}
	if s.exit != nil {
		in.Exited, in.ExitCode = true, s.exit.Code
	}
	return in
}

// idleFor is how long the session has gone without a call (0 while one
// runs).
func (s *session) idleFor() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.busy > 0 {
		return 0
	}
	return time.Since(s.lastActivity)
}
