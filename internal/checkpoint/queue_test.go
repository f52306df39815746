package checkpoint

import (
	"fmt"
	"testing"

	"steerable.dev/sidecar/internal/files"
)

// Changes are recorded off the caller's path, but whatever reads or marks
// the log sees every change queued before it, in order, and Close records
// what is still queued.
func TestQueuedChangesAreInTheLog(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir, Options{})
	const n = 3 * queueLen // more than the queue holds: Record waits, never drops
	for i := range n {
		w := files.Written{Path: "/w/a", After: files.Side{Exists: true, Data: fmt.Sprint("v", i), Mode: 0o644}}
		s.Record(files.Origin{CallID: fmt.Sprint("c", i), Tool: "write_file"}, []files.Written{w})
	}
	s.CommandRan("bash")
	c, err := s.Create("after")
	if err != nil {
		t.Fatal(err)
	}
	sn := s.snapshot()
	if len(sn.records) != n || len(sn.commands) != 1 {
		t.Fatalf("%d records and %d commands before the checkpoint, want %d and 1", len(sn.records), len(sn.commands), n)
	}
	for i, r := range sn.records {
		if r.CallID != fmt.Sprint("c", i) || r.Seq >= sn.commands[0].Seq {
			t.Fatalf("record %d is %q (seq %d), want c%d before the command (seq %d)", i, r.CallID, r.Seq, i, sn.commands[0].Seq)
		}
	}
	if sn.commands[0].Seq >= c.Seq {
		t.Fatalf("the command (seq %d) is not before the checkpoint (seq %d)", sn.commands[0].Seq, c.Seq)
	}
	// Queued, then closed at once: all of it is in the log on reopen.
	s.Record(files.Origin{CallID: "last", Tool: "write_file"}, []files.Written{{Path: "/w/b", After: files.Side{Exists: true, Data: "x"}}})
	s.Close()
	s.Record(files.Origin{CallID: "after-close", Tool: "write_file"}, nil) // dropped, not a panic
	s2 := openStore(t, dir, Options{})
	defer s2.Close()
	recs := s2.snapshot().records
	if len(recs) != n+1 || recs[n].CallID != "last" {
		t.Fatalf("after reopen: %d records (last %q), want %d ending with \"last\"", len(recs), recs[len(recs)-1].CallID, n+1)
	}
}
