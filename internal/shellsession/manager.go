package shellsession

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/sandbox"
)

// Options configure a Manager; cmd fills them from the Config.
type Options struct {
	Sandbox     *sandbox.Sandbox
	Dir         string        // where shells start: the workspace
	BufferBytes int           // STEERABLE_SESSION_BUFFER_BYTES: text kept per session
	MaxSessions int           // STEERABLE_MAX_SESSIONS
	Idle        time.Duration // STEERABLE_SESSION_IDLE_MS
	Log         zerolog.Logger
	// Bash and Init are the shell and its init (shellArgv); empty means
	// bash and sh from PATH.
	Bash, Init string
}

// ErrClosed refuses work once the Manager is closed (shutdown).
var ErrClosed = errors.New("shell sessions are closed: the sidecar is shutting down")

// ErrNoBash means the machine has no bash: sessions need its readline and
// job control.
var ErrNoBash = errors.New("bash_session needs bash, which is not installed")

// startWait bounds the wait for a new shell's first prompt.
const startWait = 10 * time.Second

// endedKept is how many ended sessions are remembered, so that a call to
// one learns how it ended instead of "no such session".
const endedKept = 64

// Manager is the table of one sidecar's shell sessions. Its methods are
// safe for concurrent use.
type Manager struct {
	opts Options

	mu       sync.Mutex
	sessions map[string]*session
	pending  int               // sessions being started, counted against the limit
	ended    map[string]string // id → how it ended, the last endedKept
	endOrder []string
	closed   bool
	stop     chan struct{}
	janitor  sync.WaitGroup
}

// New returns a Manager and starts its idle-expiry loop; Close stops it.
func New(opts Options) (*Manager, error) {
	if errNoTerminal != nil {
		return nil, errNoTerminal
	}
	if err := lookPath(&opts.Bash, "bash"); err != nil {
		return nil, ErrNoBash
	}
	if err := lookPath(&opts.Init, "sh"); err != nil {
		return nil, fmt.Errorf("shell sessions: %w", err)
	}
	m := &Manager{opts: opts, sessions: map[string]*session{}, ended: map[string]string{}, stop: make(chan struct{})}
	m.janitor.Add(1)
	go m.expireLoop()
	return m, nil
}

// lookPath fills an empty *path with name's location on PATH.
func lookPath(path *string, name string) error {
	if *path != "" {
		return nil
	}
	p, err := exec.LookPath(name)
	*path = p
	return err
}

// Open starts a shell in the workspace under the sandbox, waits for its
// first prompt, then types command (if any) and a newline and reads like
// Write.
func (m *Manager) Open(ctx context.Context, command string, req Request) (Result, error) {
	if err := m.reserve(); err != nil {
		return Result{}, err
	}
	s, err := m.start(command)
	m.admit(s)
	if err != nil {
		return Result{}, err
	}
	s.awaitPrompt(ctx, time.Now().Add(startWait))
	if command != "" {
		req.Chars = command + "\n"
	}
	res, err := s.exchange(ctx, req)
	if err != nil && ctx.Err() != nil { // nobody learns the id of a session whose open was cancelled
		m.reap(s, "was closed: the call that opened it was cancelled")
		s.kill()
		return Result{}, ctx.Err()
	}
	m.afterRead(s, res, err)
	return res, err
}

// reserve takes a slot, evicting the oldest exited session when the table
// is full.
func (m *Manager) reserve() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	if len(m.sessions)+m.pending >= m.opts.MaxSessions {
		m.evictExited()
	}
	if len(m.sessions)+m.pending >= m.opts.MaxSessions {
		return &LimitError{Max: m.opts.MaxSessions}
	}
	m.pending++
	return nil
}

// evictExited drops the oldest exited session whose output was not read;
// m.mu is held.
func (m *Manager) evictExited() {
	var oldest *session
	for _, s := range m.sessions {
		if _, ok := s.exited(); ok && (oldest == nil || s.started.Before(oldest.started)) {
			oldest = s
		}
	}
	if oldest != nil {
		exit, _ := oldest.exited()
		m.forget(oldest, fmt.Sprintf("exited with code %d; its unread output was discarded to make room for a new session", exit.Code))
	}
}

// start starts the shell; the session is nil on error.
func (m *Manager) start(command string) (*session, error) {
	leader, follower, err := openTerminal()
	if err != nil {
		return nil, err
	}
	sb := m.opts.Sandbox
	proc, err := sb.Start(sandbox.Command{Argv: shellArgv(m.opts.Init, m.opts.Bash), Dir: m.opts.Dir,
		Env: shellEnv(sb.Env(sandbox.EnvScrubbed)), TTY: follower})
	follower.Close() // the shell holds it now
	if err != nil {
		leader.Close()
		return nil, err
	}
	return newSession(m.newID(), command, proc, leader, m.opts.BufferBytes), nil
}

// admit enters a started session (or releases the slot of one that did
// not start). A session started while Close ran is killed.
func (m *Manager) admit(s *session) {
	m.mu.Lock()
	m.pending--
	closed := m.closed
	if s != nil && !closed {
		m.sessions[s.id] = s
	}
	m.mu.Unlock()
	if s != nil && closed {
		s.kill()
	}
}

// newID draws "sh-" and 8 hex digits that no session in the table or in
// the ended list has.
func (m *Manager) newID() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	for {
		var b [4]byte
		rand.Read(b[:])
		id := "sh-" + hex.EncodeToString(b[:])
		if _, live := m.sessions[id]; !live && m.ended[id] == "" {
			return id
		}
	}
}

// Write types req.Chars into the session and returns what is new once the
// output settles (see settle).
func (m *Manager) Write(ctx context.Context, id string, req Request) (Result, error) {
	s, err := m.lookup(id)
	if err != nil {
		return Result{}, err
	}
	res, err := s.exchange(ctx, req)
	m.afterRead(s, res, err)
	return res, err
}

// afterRead reaps a session whose final output has been returned.
func (m *Manager) afterRead(s *session, res Result, err error) {
	var exited *ExitedError
	switch {
	case errors.As(err, &exited):
		m.reap(s, fmt.Sprintf("exited with code %d and its final output was read", exited.Exit.Code))
	case err == nil && res.Exited:
		m.reap(s, fmt.Sprintf("exited with code %d and its final output was read", res.ExitCode))
	}
}

// End ends one session (write_stdin close:true, session.close): its whole
// tree is killed, and what it printed since the last read is returned.
// how is what a later call naming it is told ("was closed …").
func (m *Manager) End(id, how string, maxOutput int) (Result, error) {
	s, err := m.lookup(id)
	if err != nil {
		return Result{}, err
	}
	m.reap(s, how) // first: a call racing the kill learns how the session ended
	s.kill()
	return s.collect(maxOutput), nil
}

// List describes every session, oldest first.
func (m *Manager) List() []Info {
	m.mu.Lock()
	all := make([]*session, 0, len(m.sessions))
	for _, s := range m.sessions {
		all = append(all, s)
	}
	m.mu.Unlock()
	out := make([]Info, 0, len(all))
	for _, s := range all {
		out = append(out, s.info())
	}
	slices.SortFunc(out, func(a, b Info) int { return a.StartedAt.Compare(b.StartedAt) })
	return out
}

// Info describes one session.
func (m *Manager) Info(id string) (Info, error) {
	s, err := m.lookup(id)
	if err != nil {
		return Info{}, err
	}
	return s.info(), nil
}

func (m *Manager) lookup(id string) (*session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	if s, ok := m.sessions[id]; ok {
		return s, nil
	}
	live := make([]string, 0, len(m.sessions))
	for id := range m.sessions {
		live = append(live, id)
	}
	slices.Sort(live)
	return nil, &UnknownError{ID: id, Ended: m.ended[id], Live: live}
}

// reap removes s from the table.
func (m *Manager) reap(s *session, how string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sessions[s.id] == s {
		m.forget(s, how)
	}
}

// forget removes s and remembers how it ended; m.mu is held.
func (m *Manager) forget(s *session, how string) {
	delete(m.sessions, s.id)
	m.ended[s.id] = how
	m.endOrder = append(m.endOrder, s.id)
	if len(m.endOrder) > endedKept {
		delete(m.ended, m.endOrder[0])
		m.endOrder = m.endOrder[1:]
	}
}

// Close ends every session (the sidecar's shutdown, EOF, SIGTERM) and
// refuses new ones. It is safe to call more than once.
func (m *Manager) Close() {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.closed = true
	all := make([]*session, 0, len(m.sessions))
	for _, s := range m.sessions {
		all = append(all, s)
	}
	m.mu.Unlock()
	close(m.stop)
	m.janitor.Wait()
	for _, s := range all {
		s.kill()
	}
}
