package readstate

import (
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestStoreGetSetForgetSnapshot(t *testing.T) {
	s := NewStore()
	s.Set("/w/a.txt", Entry{Version: "v1", Partial: true})
	s.Set("/w/./b.txt", Entry{Version: "v2"})
	if e, ok := s.Get("/w/a.txt"); !ok || e != (Entry{Version: "v1", Partial: true}) {
		t.Errorf("Get = %+v, %v", e, ok)
	}
	if _, ok := s.Get("/w/b.txt"); !ok {
		t.Error("keys are cleaned: /w/./b.txt should be /w/b.txt")
	}
	s.Set("/w/a.txt", Entry{Version: "v3"})
	s.Forget("/w/b.txt")
	if diff := cmp.Diff(map[string]string{"/w/a.txt": "v3"}, s.Snapshot()); diff != "" {
		t.Errorf("snapshot (-want +got):\n%s", diff)
	}
}

func TestLockSerialisesAPathAndFreesItsEntry(t *testing.T) {
	s := NewStore()
	unlock := s.Lock("/w/a", "/w/b", "/w/a")
	got := make(chan struct{})
	go func() {
		u := s.Lock("/w/b")
		close(got)
		u()
	}()
	select {
	case <-got:
		t.Fatal("a second Lock of a held path did not wait")
	case <-time.After(20 * time.Millisecond):
	}
	other := s.Lock("/w/c") // other paths are not blocked
	other()
	unlock()
	<-got
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.locks) != 0 {
		t.Errorf("lock table keeps %d entries after every lock was released", len(s.locks))
	}
}

func TestLockOverlappingSetsDoNotDeadlock(t *testing.T) {
	s := NewStore()
	var wg sync.WaitGroup
	counter := 0
	for i := 0; i < 50; i++ {
		wg.Add(2)
		go func() { defer wg.Done(); u := s.Lock("/a", "/b", "/c"); counter++; u() }()
		go func() { defer wg.Done(); u := s.Lock("/c", "/a"); counter++; u() }()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("deadlock")
	}
	if counter != 100 {
		t.Errorf("counter = %d (the lock did not exclude)", counter)
	}
}
