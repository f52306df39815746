package checkpoint

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"steerable.dev/sidecar/internal/files"
)

func openStore(t *testing.T, dir string, opt Options) *Store {
	t.Helper()
	if opt.MaxBytes == 0 {
		opt.MaxBytes = 512 << 20
	}
	if opt.KeepLimit == 0 {
		opt.KeepLimit = 64 << 20
	}
	s, err := Open(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func randomText(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = "abcdefghij \n"[r.IntN(12)]
	}
	return string(b)
}

func write(s *Store, call, path, before, after string) {
	w := files.Written{Path: path, After: files.Side{Exists: true, Data: after, Mode: 0o644}}
	if before != "" {
		w.Before = files.Side{Exists: true, Data: before, Mode: 0o644}
	}
	s.Record(files.Origin{CallID: call, Tool: "edit_file"}, []files.Written{w})
	s.settle() // recorded, as the tests inspect the segments
}

func TestStoreDedupAndReopen(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir, Options{})
	r := rand.New(rand.NewPCG(1, 2))
	content := randomText(r, 1<<20)
	write(s, "c0", "/w/big", "", content)
	base := s.Size()
	const edits = 50
	for range edits {
		at := r.IntN(len(content) - 10)
		next := content[:at] + "EDIT" + content[at+4:]
		write(s, "c", "/w/big", content, next)
		content = next
	}
	grown := s.Size() - base
	// Each edit stores the chunks it touched (~8 KiB each, at most two)
	// and a version list, not the megabyte.
	if grown > edits*48<<10 {
		t.Errorf("%d edits of a 1 MiB file grew the store by %d bytes", edits, grown)
	}
	want := content
	sn := s.snapshot()
	last := sn.records[len(sn.records)-1]
	s.Close()
	s2 := openStore(t, dir, Options{})
	got, err := s2.content(last.After.Version)
	if err != nil || got != want {
		t.Fatalf("after reopen: content differs (err %v)", err)
	}
	if n := len(s2.snapshot().records); n != edits+1 {
		t.Errorf("reopened store has %d records, want %d", n, edits+1)
	}
}

// TestStoreTornTail cuts the last segment at every byte of its last
// append, as a SIGKILL mid-write would, and reopens it: the store opens,
// the last record is whole or absent, and appending works again.
func TestStoreTornTail(t *testing.T) {
	src := t.TempDir()
	s := openStore(t, src, Options{})
	write(s, "c1", "/w/a", "", "first\r\n")
	mid := s.cur().size
	write(s, "c2", "/w/a", "first\r\n", strings.Repeat("second line\n", 1000))
	full := s.cur().size
	seg := filepath.Join(src, segName(s.cur().id))
	s.Close()
	data, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	for cut := mid; cut <= full; cut += max(1, (full-mid)/200) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(seg)), data[:cut], 0o600); err != nil {
			t.Fatal(err)
		}
		s := openStore(t, dir, Options{})
		recs := s.snapshot().records
		switch {
		case cut == full && len(recs) != 2, cut < full && len(recs) != 1:
			t.Fatalf("cut at %d of %d: %d records", cut, full, len(recs))
		}
		for _, r := range recs {
			if _, err := s.content(r.After.Version); err != nil {
				t.Fatalf("cut at %d: record %d: %v", cut, r.Seq, err)
			}
		}
		write(s, "c3", "/w/b", "", "again")
		s.Close()
		s = openStore(t, dir, Options{})
		if n := len(s.snapshot().records); n != len(recs)+1 {
			t.Fatalf("cut at %d: after an append and reopen, %d records, want %d", cut, n, len(recs)+1)
		}
		s.Close()
	}
}

func TestStoreEvictsOldestFirst(t *testing.T) {
	s := openStore(t, t.TempDir(), Options{MaxBytes: 1 << 20})
	r := rand.New(rand.NewPCG(3, 4))
	first := "kept across eviction\n"
	write(s, "keep", "/w/keep", "", first)
	for i := range 12 {
		write(s, "c"+string(rune('a'+i)), "/w/f", "", randomText(r, 200<<10))
	}
	if s.Size() > 1<<20 {
		t.Errorf("store is %d bytes, over its 1 MiB cap", s.Size())
	}
	recs := s.snapshot().records
	if len(recs) == 13 || recs[0].CallID == "keep" {
		t.Fatalf("nothing was evicted: %d records, first %q", len(recs), recs[0].CallID)
	}
	if recs[len(recs)-1].CallID != "cl" {
		t.Errorf("the newest record was evicted: last is %q", recs[len(recs)-1].CallID)
	}
	for i := 1; i < len(recs); i++ {
		if recs[i].Seq <= recs[i-1].Seq {
			t.Fatal("records out of order")
		}
	}
	// A later record reusing an evicted segment's content keeps it.
	write(s, "reuse", "/w/keep2", "", first)
	for range 6 {
		write(s, "more", "/w/g", "", randomText(r, 200<<10))
	}
	for _, rec := range s.snapshot().records {
		if _, err := s.content(rec.After.Version); err != nil {
			t.Fatalf("record %s: %v", rec.CallID, err)
		}
	}
}

func TestStoreSides(t *testing.T) {
	s := openStore(t, t.TempDir(), Options{KeepLimit: 1024})
	tests := []struct {
		name string
		side files.Side
		want string
	}{
		{"absent", files.Side{}, StateAbsent},
		{"kept", files.Side{Exists: true, Data: "x", Mode: 0o755}, StateKept},
		{"empty file kept", files.Side{Exists: true, Mode: 0o600}, StateKept},
		{"over the limit, not read", files.Side{Exists: true, TooLarge: true}, StateNotKept},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := s.prepare("/w/"+tt.name, tt.side).side; got.State != tt.want || got.Mode != uint32(tt.side.Mode) {
				t.Errorf("prepare = %+v, want state %s mode %o", got, tt.want, tt.side.Mode)
			}
		})
	}
}

func TestStoreLocked(t *testing.T) {
	dir := t.TempDir()
	openStore(t, dir, Options{})
	if _, err := Open(dir, Options{MaxBytes: 1 << 20}); err != ErrLocked {
		t.Fatalf("second Open = %v, want ErrLocked", err)
	}
}

// FuzzScan feeds arbitrary bytes to the segment reader: it must not panic,
// and what it accepts must be exactly the frames it re-encodes to.
func FuzzScan(f *testing.F) {
	dir := f.TempDir()
	s, err := Open(dir, Options{MaxBytes: 1 << 20, KeepLimit: 1 << 20})
	if err != nil {
		f.Fatal(err)
	}
	write(s, "c1", "/w/a", "", "hello\r\n")
	write(s, "c1", "/w/a", "hello\r\n", "\ufeffbye")
	_, _ = s.Create("turn")
	s.CommandRan("bash")
	seg := filepath.Join(dir, segName(s.cur().id))
	s.Close()
	seed, _ := os.ReadFile(seg)
	f.Add(seed)
	f.Add(seed[:len(seed)-3])
	f.Add([]byte(segMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := &Store{chunkAt: map[hash]loc{}, versions: map[hash]*version{}}
		end, err := s.scan(1, bytes.NewReader(data))
		if err != nil || end < 0 || end > int64(len(data)) {
			t.Fatalf("scan = %d, %v over %d bytes", end, err, len(data))
		}
		if end == 0 {
			return
		}
		fr, err := newFrameReader(bytes.NewReader(data[:end]))
		if err != nil {
			t.Fatal("accepted prefix has no magic")
		}
		re := []byte(segMagic)
		for {
			kind, p, err := fr.next()
			if err != nil {
				break
			}
			re = appendFrame(re, kind, p)
		}
		if !bytes.Equal(re, data[:end]) {
			t.Fatal("the accepted prefix is not its frames re-encoded")
		}
		s.dropDangling()
	})
}
