package launch

import (
	"runtime"
	"sync"

	"golang.org/x/sys/unix"
)

// spawner is a pool of OS threads that start unconfined children (bwrap,
// none, an inherited or unconfined child: every launch without
// Spec.Confine).
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
// A pool's threads may first enter a namespace (enter): the launcher's
// second pool lives in the session's empty network namespace (netns_linux.go).
//
// A confined launch (Landlock's thread mode) does not come here: the
// confinement stays with the thread, so that thread is used once, held
// until its child is reaped and then retired (launcher.hold).
type spawner struct {
	// enter runs on each new thread before its first job; a thread whose
	// enter fails passes the error to that job and retires.
	enter func() error

	mu     sync.Mutex
	idle   []chan func(error)
	closed bool
}

// run runs job on a spawner thread and reports whether it could: false
// once the pool is closed. job gets enter's error, if any; it must not
// block for long: it holds the thread.
func (s *spawner) run(job func(error)) bool {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return false
	}
	var jobs chan func(error)
	if k := len(s.idle); k > 0 {
		jobs = s.idle[k-1]
		s.idle = s.idle[:k-1]
	}
	s.mu.Unlock()
	if jobs == nil {
		jobs = make(chan func(error), 1)
		onOwnThread(func() { s.thread(jobs) })
	}
	jobs <- job
	return true
}

// thread is one spawner thread: it runs jobs until the pool is closed.
func (s *spawner) thread(jobs chan func(error)) {
	if s.enter != nil {
		if err := s.enter(); err != nil {
			(<-jobs)(err)
			return // a thread in an unknown state retires
		}
	}
	for job := range jobs {
		job(nil)
		if !s.park(jobs) {
			return
		}
	}
}

// park returns the thread to the pool; false when the pool is closed, and
// the thread retires.
func (s *spawner) park(jobs chan func(error)) bool {
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

// onOwnThread runs f in a new goroutine locked to an OS thread that is
// not the main one, and never unlocks it: Go retires the thread when f
// returns, with whatever f did to it (a confinement, a namespace, the
// children whose parent-death signal it carries). The main thread is
// never retired — a goroutine that ends locked to it wedges it — so f
// would leave its state there for the life of the process. A goroutine
// that lands there hands f to another and keeps the main thread locked
// until that one has locked a thread of its own, which therefore is not
// the main one. (Letting go first and trying again could land on the main
// thread forever: with GOMAXPROCS=1 the new goroutine runs next, on the
// thread just released, and a boot with plugins spun there for good.)
func onOwnThread(f func()) {
	go func() {
		runtime.LockOSThread()
		if unix.Gettid() != unix.Getpid() {
			f()
			return
		}
		locked := make(chan struct{})
		go func() {
			runtime.LockOSThread()
			close(locked)
			f()
		}()
		<-locked
		runtime.UnlockOSThread()
	}()
}
