package checkpoint

import (
	"sync"

	"steerable.dev/sidecar/internal/files"
)

// Recording is off the tools' path: Record queues the change and returns,
// and one goroutine hashes, chunks and appends the queued changes in the
// order they were made (an edit of a 1 MiB file costs a few ms of CPU
// there, which the call no longer waits for). Everything that reads or
// marks the log — snapshot, Create, Size, Close — first waits until what
// was queued before it is in the log, so a restore always compares with
// every change the tools made. A crash loses at most the queued changes:
// their records are absent, never torn, and a restore then finds those
// files changed since the tools last wrote them (a conflict, not a blind
// write).

// queueLen bounds the changes waiting; past it Record waits (the
// contents are the tools' own strings, not copies).
const queueLen = 64

// job is one queued change, a command noted, or a barrier (done).
type job struct {
	origin  files.Origin
	changes []files.Written
	command string
	done    chan struct{}
}

// queue feeds the recording goroutine.
type queue struct {
	mu     sync.RWMutex // held to send; Close takes it whole to close jobs
	jobs   chan job
	closed bool
	exited chan struct{}
}

// start runs the recording goroutine.
func (s *Store) start() {
	s.q.jobs, s.q.exited = make(chan job, queueLen), make(chan struct{})
	go func() {
		defer close(s.q.exited)
		for j := range s.q.jobs {
			switch {
			case j.done != nil:
				close(j.done)
			case j.command != "":
				s.commandRan(j.command)
			default:
				s.record(j.origin, j.changes)
			}
		}
	}()
}

// send queues j; false once the store is closed.
func (s *Store) send(j job) bool {
	s.q.mu.RLock()
	defer s.q.mu.RUnlock()
	if s.q.closed {
		return false
	}
	s.q.jobs <- j
	return true
}

// settle waits until every change queued before it is in the log.
func (s *Store) settle() {
	done := make(chan struct{})
	if s.send(job{done: done}) {
		<-done
	}
}

// stop records what is queued and ends the goroutine.
func (s *Store) stop() {
	s.q.mu.Lock()
	if !s.q.closed {
		s.q.closed = true
		close(s.q.jobs)
	}
	s.q.mu.Unlock()
	<-s.q.exited
}

// Record implements files.Recorder: the changes are queued, and each
// becomes a record, its contents versions in the store.
func (s *Store) Record(o files.Origin, changes []files.Written) {
	s.send(job{origin: o, changes: changes})
}

// CommandRan notes a call whose changes are not recorded, in order with
// the changes queued before it.
func (s *Store) CommandRan(tool string) {
	s.send(job{command: tool})
}

// recentSums remembers, per path, the hash of the last content recorded,
// so the "before" of the next edit of a file — the content the tools last
// wrote, read back by the tool as another string — costs a comparison
// instead of a hash. It holds at most recentBytes of contents.
type recentSums struct {
	byPath map[string]recentSum
	bytes  int
}

type recentSum struct {
	data string
	h    hash
}

const recentBytes = 16 << 20

// sum is the hash of path's content data, remembered for the next call.
func (r *recentSums) sum(path, data string) hash {
	if e, ok := r.byPath[path]; ok && e.data == data {
		return e.h
	}
	h := sum(data)
	if r.byPath == nil {
		r.byPath = map[string]recentSum{}
	}
	if e, ok := r.byPath[path]; ok {
		r.bytes -= len(e.data)
		delete(r.byPath, path)
	}
	if len(data) > recentBytes/4 {
		return h
	}
	for p, e := range r.byPath { // over budget: any others go
		if r.bytes+len(data) <= recentBytes {
			break
		}
		r.bytes -= len(e.data)
		delete(r.byPath, p)
	}
	r.byPath[path] = recentSum{data, h}
	r.bytes += len(data)
	return h
}
