package launch

import (
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"steerable.dev/sidecar/internal/sandbox/sandboxtest"
)

// Jobs run one after another reuse one OS thread; a job started while
// another holds its thread gets a thread of its own; a closed pool runs
// nothing (the caller then uses a thread of its own).
func TestSpawnerReusesItsThreads(t *testing.T) {
	var s spawner
	tid := func() int {
		got := make(chan int)
		if !s.run(func(error) { got <- unix.Gettid() }) {
			t.Fatal("an open pool refused a job")
		}
		id := <-got
		// The job has answered but its thread parks just after: a job
		// submitted before that would rightly get a new thread.
		sandboxtest.WaitUntil(t, "no pool thread parked", func() bool {
			s.mu.Lock()
			defer s.mu.Unlock()
			return len(s.idle) > 0
		})
		return id
	}
	first := tid()
	for range 5 {
		if got := tid(); got != first {
			t.Fatalf("a job ran on thread %d, want the pool's %d", got, first)
		}
	}
	if first == unix.Getpid() {
		t.Error("a job ran on the main thread")
	}
	release, holding := make(chan struct{}), make(chan int)
	s.run(func(error) { holding <- unix.Gettid(); <-release })
	busy := <-holding
	if other := tid(); other == busy {
		t.Error("a job ran on the thread another job holds")
	}
	close(release)
	s.close()
	if s.run(func(error) {}) {
		t.Error("a closed pool took a job")
	}
}

// onOwnThread never runs f on the main thread, and a goroutine that lands
// there hands over at once, even with one P: the main thread's next
// goroutine is then the new one, and the handover must not spin on it.
func TestOnOwnThreadLeavesTheMainThreadWithOneP(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for i := range 200 {
		got := make(chan int, 1)
		onOwnThread(func() { got <- unix.Gettid() })
		select {
		case tid := <-got:
			if tid == unix.Getpid() {
				t.Fatalf("call %d ran on the main thread", i)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("call %d did not start within 10s (the handover spins on the main thread)", i)
		}
	}
}
