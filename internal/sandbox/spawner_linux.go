package sandbox

import (
	"runtime"
	"sync"

	"golang.org/x/sys/unix"
)

// spawner is the launcher's pool of OS threads that start unconfined
// children (bwrap, none, an inherited or unconfined child: every launch
// without Launch.Confine).
//
// A child's parent-death signal fires when the thread that forked it
// exits, so that thread must outlive the child. Go retires a thread whose
// locked goroutine returns, and creating and retiring one costs about a
// quarter of a millisecond here — a twentieth of a bwrap call. A spawner
// thread is locked for good and never exits while the session is open: it
// starts one child after another, and every child it ever started keeps
// its parent-death signal until the sidecar itself dies. The pool grows to
// the largest number of children started at the same moment (each start
// holds a thread only until the child is set up) and is retired by close,
// after every child was killed and reaped.
//
// A confined launch (Landlock's thread mode) does not come here: the
// confinement stays with the thread, so that thread is used once, held
// until its child is reaped and then retired (launcher.hold).
type spawner struct {
	mu     sync.Mutex
	idle   []chan func()
	closed bool
}

// run runs job on a spawner thread and reports whether it could: false
// once the pool is closed (the caller then uses a thread of its own).
// job must not block for long: it holds the thread.
func (s *spawner) run(job func()) bool {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return false
	}
	var jobs chan func()
	if k := len(s.idle); k > 0 {
		jobs = s.idle[k-1]
		s.idle = s.idle[:k-1]
	}
	s.mu.Unlock()
	if jobs == nil {
		jobs = make(chan func(), 1)
		go s.thread(jobs)
	}
	jobs <- job
	return true
}

// thread is one spawner thread's goroutine: it runs jobs until the pool is
// closed.
func (s *spawner) thread(jobs chan func()) {
	runtime.LockOSThread() // never unlocked: the children's parent-death signals
	if unix.Gettid() == unix.Getpid() {
		// The main thread: Go never retires it, and a goroutine locked to it
		// when it returns wedges it. Hand over to a goroutine that cannot
		// start here while this one holds it.
		go s.thread(jobs)
		runtime.UnlockOSThread()
		return
	}
	for job := range jobs {
		job()
		if !s.park(jobs) {
			return
		}
	}
}

// park returns the thread to the pool; false when the pool is closed, and
// the thread retires.
func (s *spawner) park(jobs chan func()) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.idle = append(s.idle, jobs)
	return true
}

// close retires the idle threads, and the busy ones when their job ends.
// The caller has killed and reaped every child first: a thread's exit is
// its children's parent-death signal.
func (s *spawner) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for _, jobs := range s.idle {
		close(jobs)
	}
	s.idle = nil
}
