package readstate

import (
	"path/filepath"
	"sort"
	"sync"
)

// Entry is what the session knows about one file.
type Entry struct {
	// Version is the version the session last read or wrote.
	Version string
	// Partial is set when the last read showed only part of the file
	// (clipped or ranged); a whole-file overwrite is then refused. Only a
	// full read or a write_file the gates allowed clears it: an edit or a
	// patch changes what it quotes and leaves the unseen rest unseen, so it
	// keeps the flag (SPEC §4.1, gate 3).
	Partial bool
}

// Store maps absolute, cleaned paths to Entries. It is safe for concurrent
// use. Keys are whatever the file tools report as data.path, so a host can
// hand them back through read_state.seed unchanged.
type Store struct {
	mu      sync.Mutex
	entries map[string]Entry
	locks   map[string]*pathLock
}

// pathLock is one path's mutex, kept only while someone holds or waits for
// it, so the lock table does not grow with every path ever touched.
type pathLock struct {
	mu    sync.Mutex
	users int
}

// NewStore returns an empty store.
func NewStore() *Store {
	return &Store{entries: map[string]Entry{}, locks: map[string]*pathLock{}}
}

// Get returns the entry for path.
func (s *Store) Get(path string) (Entry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.entries[filepath.Clean(path)]
	return e, ok
}

// Set records e for path, replacing what was there.
func (s *Store) Set(path string, e Entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.entries[filepath.Clean(path)] = e
}

// Forget drops path (a file the session deleted).
func (s *Store) Forget(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.entries, filepath.Clean(path))
}

// Snapshot returns path → version for every entry (read_state.get).
func (s *Store) Snapshot() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]string, len(s.entries))
	for p, e := range s.entries {
		out[p] = e.Version
	}
	return out
}

// Len is the number of entries.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.entries)
}

// Lock takes the per-path locks of every given path and returns the
// function that releases them. Paths are cleaned, deduplicated and locked
// in sorted order, so two callers locking overlapping sets cannot deadlock.
// The file tools hold these locks from the version check until the state
// is updated after the write.
func (s *Store) Lock(paths ...string) (unlock func()) {
	keys := make([]string, 0, len(paths))
	seen := map[string]bool{}
	for _, p := range paths {
		if p = filepath.Clean(p); !seen[p] {
			seen[p] = true
			keys = append(keys, p)
		}
	}
	sort.Strings(keys)
	held := make([]*pathLock, len(keys))
	for i, k := range keys {
		held[i] = s.acquire(k)
	}
	return func() {
		for i := len(keys) - 1; i >= 0; i-- {
			s.release(keys[i], held[i])
		}
	}
}

func (s *Store) acquire(key string) *pathLock {
	s.mu.Lock()
	l := s.locks[key]
	if l == nil {
		l = &pathLock{}
		s.locks[key] = l
	}
	l.users++
	s.mu.Unlock()
	l.mu.Lock()
	return l
}

func (s *Store) release(key string, l *pathLock) {
	l.mu.Unlock()
	s.mu.Lock()
	if l.users--; l.users == 0 {
		delete(s.locks, key)
	}
	s.mu.Unlock()
}
