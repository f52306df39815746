package checkpoint

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"steerable.dev/sidecar/internal/files"
)

// Options bound a store.
type Options struct {
	// MaxBytes is the most the store's segments may hold together
	// (STEERABLE_CHECKPOINT_MAX_MB); the oldest segment goes first.
	MaxBytes int64
	// KeepLimit is the largest content kept (STEERABLE_FILE_MAX_BYTES); a
	// larger one is recorded as not kept.
	KeepLimit int64
	// Now is the clock (tests); nil: time.Now.
	Now func() time.Time
	// Fault, set only by tests, sees every append before it is written.
	Fault Fault
}

// Fault is told of an append before it is written: the segment, the
// offset and the frames (an end-to-end test writes part of them and
// kills the process, as a crash mid-append would).
type Fault func(f *os.File, off int64, frames []byte)

// Store is a workspace's change log: content-addressed chunks and
// versions, records, checkpoints and commands, in append-only segments.
// It is safe for concurrent use.
type Store struct {
	dir  string
	opt  Options
	lock io.Closer
	q    queue // changes waiting to be recorded (queue.go)
	// recent are the last contents recorded and their hashes, owned by
	// the recording goroutine (queue.go).
	recent recentSums

	mu          sync.Mutex
	segs        []*segment // oldest first; the last is appended to
	segMax      int64
	total       int64
	seq         int64
	chunkAt     map[hash]loc
	versions    map[hash]*version
	records     []Record
	checkpoints []Checkpoint
	commands    []Command
	dirty       bool // appended since the last fsync
}

type segment struct {
	id   int64
	f    *os.File
	size int64
}

// loc is where a chunk's bytes lie.
type loc struct {
	seg int64
	off int64
	n   int64
}

type version struct {
	seg    int64
	size   int64
	chunks []hash
}

// Dir is the directory of the store of workspace under root (the state
// directory): one per workspace, named by a hash of its path.
func Dir(root, workspace string) string {
	sum := sha256.Sum256([]byte(workspace))
	return filepath.Join(root, "checkpoints", hex.EncodeToString(sum[:8]))
}

// ErrLocked is another process's store: it is that process's log.
var ErrLocked = errors.New("the checkpoint store is in use by another sidecar on this workspace")

// Open opens (creating) the store in dir. Segments are read whole; a torn
// frame at a segment's end, which a crash mid-append leaves, is cut off,
// so every record is whole or absent.
func Open(dir string, opt Options) (*Store, error) {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	lk, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	s := &Store{dir: dir, opt: opt, lock: lk, chunkAt: map[hash]loc{}, versions: map[hash]*version{},
		segMax: min(max(opt.MaxBytes/8, 64<<10), 64<<20)}
	s.start()
	if err := s.load(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// load reads every segment in order.
func (s *Store) load() error {
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return err
	}
	var ids []int64
	for _, e := range ents {
		if id, ok := segID(e.Name()); ok {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		if err := s.loadSegment(id); err != nil {
			return err
		}
	}
	s.dropDangling()
	if len(s.segs) == 0 {
		return s.roll()
	}
	return nil
}

func segName(id int64) string { return fmt.Sprintf("seg-%016x.log", id) }

func segID(name string) (int64, bool) {
	hexID, okPrefix := strings.CutPrefix(name, "seg-")
	hexID, okSuffix := strings.CutSuffix(hexID, ".log")
	if !okPrefix || !okSuffix || len(hexID) != 16 {
		return 0, false
	}
	id, err := strconv.ParseInt(hexID, 16, 64)
	return id, err == nil
}

// loadSegment indexes one segment and cuts a torn tail off it.
func (s *Store) loadSegment(id int64) error {
	f, err := os.OpenFile(filepath.Join(s.dir, segName(id)), os.O_RDWR, 0)
	if err != nil {
		return err
	}
	seg := &segment{id: id, f: f}
	valid, err := s.scan(id, f)
	if err != nil {
		f.Close()
		return err
	}
	if fi, err := f.Stat(); err == nil && fi.Size() != valid {
		if valid == 0 { // not even the magic: write it again
			if _, err := f.WriteAt([]byte(segMagic), 0); err != nil {
				f.Close()
				return err
			}
			valid = int64(len(segMagic))
		}
		if err := f.Truncate(valid); err != nil {
			f.Close()
			return err
		}
		_ = f.Sync()
	}
	seg.size = valid
	s.segs = append(s.segs, seg)
	s.total += valid
	return nil
}

// scan indexes the whole frames of a segment and returns where they end
// (0: no magic).
func (s *Store) scan(id int64, r io.Reader) (int64, error) {
	fr, err := newFrameReader(bufio.NewReaderSize(r, 64<<10))
	if err != nil {
		return 0, nil
	}
	for {
		start := fr.off
		kind, p, err := fr.next()
		if err != nil {
			return fr.off, nil // io.EOF or a torn tail
		}
		if !s.index(id, start, kind, p) {
			return start, nil // a frame that checks but does not parse: cut here too
		}
	}
}

// index adds one frame, read at off in segment id, to the in-memory index.
func (s *Store) index(id, off int64, kind byte, p []byte) bool {
	switch kind {
	case kindChunk:
		if len(p) < len(hash{}) {
			return false
		}
		s.chunkAt[hash(p[:32])] = loc{seg: id, off: off + headerLen + 32, n: int64(len(p) - 32)}
	case kindVersion:
		v, h, ok := decodeVersion(p)
		if !ok {
			return false
		}
		v.seg = id
		s.versions[h] = v
	case kindRecord:
		var r Record
		if json.Unmarshal(p, &r) != nil || !r.valid() {
			return false
		}
		r.seg = id
		s.records = append(s.records, r)
		s.seq = max(s.seq, r.Seq)
	case kindCheckpoint:
		var c Checkpoint
		if json.Unmarshal(p, &c) != nil || c.ID == "" {
			return false
		}
		c.seg = id
		s.checkpoints = append(s.checkpoints, c)
		s.seq = max(s.seq, c.Seq)
	case kindCommand:
		var c Command
		if json.Unmarshal(p, &c) != nil {
			return false
		}
		c.seg = id
		s.commands = append(s.commands, c)
		s.seq = max(s.seq, c.Seq)
	default:
		return false
	}
	return true
}

func (r Record) valid() bool { return r.Path != "" && r.Before.valid() && r.After.valid() }

func (sd Side) valid() bool {
	switch sd.State {
	case StateAbsent:
		return true
	case StateKept:
		_, ok := parseVersion(sd.Version)
		return ok
	case StateNotKept:
		return sd.Version == "" || len(sd.Version) == 64
	}
	return false
}

func parseVersion(v string) (hash, bool) {
	var h hash
	b, err := hex.DecodeString(v)
	if err != nil || len(b) != len(h) {
		return h, false
	}
	return hash(b), true
}

// encodeVersion is a version frame's payload.
func encodeVersion(h hash, size int64, cs []hash) []byte {
	b := make([]byte, 0, 40+32*len(cs))
	b = append(b, h[:]...)
	b = binary.LittleEndian.AppendUint64(b, uint64(size))
	for _, c := range cs {
		b = append(b, c[:]...)
	}
	return b
}

func decodeVersion(p []byte) (*version, hash, bool) {
	if len(p) < 40 || (len(p)-40)%32 != 0 {
		return nil, hash{}, false
	}
	v := &version{size: int64(binary.LittleEndian.Uint64(p[32:40]))}
	for c := p[40:]; len(c) > 0; c = c[32:] {
		v.chunks = append(v.chunks, hash(c[:32]))
	}
	return v, hash(p[:32]), v.size >= 0
}

// dropDangling forgets versions whose chunks are missing and makes the
// sides of records whose version is missing "not kept": a segment cut
// short by hand, never by a crash (appends are ordered).
func (s *Store) dropDangling() {
	for h, v := range s.versions {
		for _, c := range v.chunks {
			if _, ok := s.chunkAt[c]; !ok {
				delete(s.versions, h)
				break
			}
		}
	}
	for i := range s.records {
		for _, sd := range []*Side{&s.records[i].Before, &s.records[i].After} {
			if h, _ := parseVersion(sd.Version); sd.State == StateKept && s.versions[h] == nil {
				sd.State = StateNotKept
			}
		}
	}
}

// roll starts a new segment.
func (s *Store) roll() error {
	id := int64(1)
	if n := len(s.segs); n > 0 {
		id = s.segs[n-1].id + 1
	}
	f, err := os.OpenFile(filepath.Join(s.dir, segName(id)), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write([]byte(segMagic)); err != nil {
		f.Close()
		return err
	}
	if n := len(s.segs); n > 0 {
		_ = s.segs[n-1].f.Sync() // a sealed segment is durable before eviction can rely on it
	}
	syncDir(s.dir)
	s.segs = append(s.segs, &segment{id: id, f: f, size: int64(len(segMagic))})
	s.total += int64(len(segMagic))
	return nil
}

func (s *Store) cur() *segment { return s.segs[len(s.segs)-1] }

// appendFrames writes buf, whole frames, to the current segment in one
// write.
func (s *Store) appendFrames(buf []byte) error {
	seg := s.cur()
	if s.opt.Fault != nil {
		s.opt.Fault(seg.f, seg.size, buf)
	}
	if _, err := seg.f.WriteAt(buf, seg.size); err != nil {
		_ = seg.f.Truncate(seg.size) // no torn frame left behind
		return err
	}
	seg.size += int64(len(buf))
	s.total += int64(len(buf))
	s.dirty = true
	return nil
}

// Sync makes what was appended durable (a checkpoint, Close).
func (s *Store) Sync() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.syncLocked()
}

func (s *Store) syncLocked() {
	if s.dirty && len(s.segs) > 0 {
		_ = s.cur().f.Sync()
		s.dirty = false
	}
}

// Close records what is queued, syncs and closes the segments.
func (s *Store) Close() error {
	s.stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.syncLocked()
	for _, seg := range s.segs {
		seg.f.Close()
	}
	s.segs = nil
	if s.lock != nil {
		return s.lock.Close()
	}
	return nil
}

// Limit implements files.Recorder.
func (s *Store) Limit() int64 { return s.opt.KeepLimit }

// Size is the bytes the store's segments hold.
func (s *Store) Size() int64 {
	s.settle()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// pending is a content to store: its version and, when the store lacks
// it, the content and its chunks, whose frames commitSide writes for the
// chunks the store lacks then.
type pending struct {
	side Side
	data string // the content, when ver is set
	ends []int  // where each chunk of data ends
	ver  *version
	h    hash
}

// prepare hashes and chunks a side outside the lock; known versions cost
// one hash.
func (s *Store) prepare(path string, sd files.Side) pending {
	mode := uint32(sd.Mode)
	switch {
	case !sd.Exists:
		return pending{side: Side{State: StateAbsent}}
	case sd.TooLarge || int64(len(sd.Data)) > s.opt.MaxBytes/2:
		p := pending{side: Side{State: StateNotKept, Mode: mode}}
		if !sd.TooLarge || sd.Data != "" {
			h := sum(sd.Data)
			p.side.Version = hex.EncodeToString(h[:])
		}
		return p
	}
	prev := s.recent.byPath[path] // before sum replaces it
	h := s.recent.sum(path, sd.Data)
	p := pending{side: Side{State: StateKept, Version: hex.EncodeToString(h[:]), Mode: mode}, h: h}
	s.mu.Lock()
	_, known := s.versions[h]
	base := s.chunksOf(prev)
	s.mu.Unlock()
	if known {
		return p
	}
	p.ver, p.data = &version{size: int64(len(sd.Data))}, sd.Data
	p.ver.chunks, p.ends = rechunk(base, sd.Data)
	return p
}

// chunksOf is the chunking of a content the store holds (nil when it does
// not hold it whole).
func (s *Store) chunksOf(r recentSum) *chunking {
	v := s.versions[r.h]
	if v == nil || r.data == "" {
		return nil
	}
	c := &chunking{data: r.data, hashes: v.chunks}
	end := 0
	for _, ch := range v.chunks {
		l, ok := s.chunkAt[ch]
		if !ok {
			return nil
		}
		end += int(l.n)
		c.ends = append(c.ends, end)
	}
	if end != len(r.data) {
		return nil
	}
	return c
}

// commitSide appends a prepared side's frames (the chunks the store lacks,
// then the version) to buf, which will be written at base in segment id.
// Only the new chunks are framed, so an edit of a large file copies and
// checksums the chunks it touched, not the file.
func (s *Store) commitSide(buf []byte, base int64, id int64, p pending) []byte {
	if p.ver == nil {
		return buf
	}
	if _, known := s.versions[p.h]; known {
		return buf
	}
	start := 0
	for i, ch := range p.ver.chunks {
		c := p.data[start:p.ends[i]]
		start = p.ends[i]
		if _, have := s.chunkAt[ch]; have {
			continue
		}
		at := base + int64(len(buf))
		buf = appendChunkFrame(buf, ch, c)
		s.chunkAt[ch] = loc{seg: id, off: at + headerLen + 32, n: int64(len(c))}
	}
	buf = appendFrame(buf, kindVersion, encodeVersion(p.h, p.ver.size, p.ver.chunks))
	p.ver.seg = id
	s.versions[p.h] = p.ver
	return buf
}

// record appends the records of changes (the recording goroutine).
func (s *Store) record(o files.Origin, changes []files.Written) {
	type prepared struct{ before, after pending }
	ps := make([]prepared, len(changes))
	for i, c := range changes {
		ps[i] = prepared{s.prepare(c.Path, c.Before), s.prepare(c.Path, c.After)}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.segs) == 0 {
		return // closed
	}
	if s.cur().size > s.segMax {
		if err := s.roll(); err != nil {
			return
		}
	}
	seg := s.cur()
	var buf []byte
	now := s.opt.Now().UTC()
	var recs []Record
	for i, c := range changes {
		buf = s.commitSide(buf, seg.size, seg.id, ps[i].before)
		buf = s.commitSide(buf, seg.size, seg.id, ps[i].after)
		s.seq++
		r := Record{Seq: s.seq, Time: now, CallID: o.CallID, Tool: o.Tool, Path: c.Path,
			Before: ps[i].before.side, After: ps[i].after.side, seg: seg.id}
		b, _ := json.Marshal(r)
		buf = appendFrame(buf, kindRecord, b)
		recs = append(recs, r)
	}
	if err := s.appendFrames(buf); err != nil {
		s.reindex() // the frames are not there: forget what this append indexed
		return
	}
	s.records = append(s.records, recs...)
	s.evict()
}

// reindex rebuilds the index from the segments after a failed append.
func (s *Store) reindex() {
	segs := s.segs
	s.segs, s.total, s.chunkAt, s.versions = nil, 0, map[hash]loc{}, map[hash]*version{}
	s.records, s.checkpoints, s.commands = nil, nil, nil
	for _, seg := range segs {
		seg.f.Close()
	}
	if err := s.load(); err != nil {
		s.segs = nil // closed: records are dropped from now on
	}
}

// appendMeta appends one JSON frame (a checkpoint or a command).
func (s *Store) appendMeta(kind byte, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if len(s.segs) == 0 {
		return errClosed
	}
	return s.appendFrames(appendFrame(nil, kind, b))
}

var errClosed = errors.New("the checkpoint store is closed")

// Create marks a checkpoint and makes the log up to it durable.
func (s *Store) Create(label string) (Checkpoint, error) {
	s.settle()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	c := Checkpoint{ID: "cp-" + strconv.FormatInt(s.seq, 10), Label: label, Time: s.opt.Now().UTC(), Seq: s.seq}
	if err := s.appendMeta(kindCheckpoint, c); err != nil {
		return Checkpoint{}, err
	}
	c.seg = s.cur().id
	s.checkpoints = append(s.checkpoints, c)
	s.syncLocked()
	return c, nil
}

// commandRan appends a command's note (the recording goroutine).
func (s *Store) commandRan(tool string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	c := Command{Seq: s.seq, Time: s.opt.Now().UTC(), Tool: tool}
	if s.appendMeta(kindCommand, c) == nil {
		c.seg = s.cur().id
		s.commands = append(s.commands, c)
	}
}

// evict drops the oldest segments while the store is over its cap,
// copying forward the chunks and versions later records still need.
func (s *Store) evict() {
	for s.total > s.opt.MaxBytes && len(s.segs) > 1 {
		if err := s.evictOldest(); err != nil {
			return
		}
	}
}

func (s *Store) evictOldest() error {
	old := s.segs[0]
	keep := func(seg int64) bool { return seg != old.id }
	s.records = slices.DeleteFunc(s.records, func(r Record) bool { return !keep(r.seg) })
	s.checkpoints = slices.DeleteFunc(s.checkpoints, func(c Checkpoint) bool { return !keep(c.seg) })
	s.commands = slices.DeleteFunc(s.commands, func(c Command) bool { return !keep(c.seg) })
	live := map[hash]bool{}
	for _, r := range s.records {
		for _, sd := range []Side{r.Before, r.After} {
			if h, ok := parseVersion(sd.Version); ok && sd.State == StateKept {
				live[h] = true
			}
		}
	}
	seg := s.cur()
	var buf []byte
	for h, v := range s.versions {
		if !live[h] {
			if v.seg == old.id {
				delete(s.versions, h)
			}
			continue
		}
		for _, c := range v.chunks {
			at, ok := s.chunkAt[c]
			if !ok || at.seg != old.id {
				continue
			}
			data := make([]byte, at.n)
			if _, err := old.f.ReadAt(data, at.off); err != nil {
				return err
			}
			s.chunkAt[c] = loc{seg: seg.id, off: seg.size + int64(len(buf)) + headerLen + 32, n: at.n}
			buf = appendFrame(buf, kindChunk, c[:], data)
		}
		if v.seg == old.id {
			v.seg = seg.id
			buf = appendFrame(buf, kindVersion, encodeVersion(h, v.size, v.chunks))
		}
	}
	for c, at := range s.chunkAt {
		if at.seg == old.id {
			delete(s.chunkAt, c)
		}
	}
	if len(buf) > 0 {
		if err := s.appendFrames(buf); err != nil {
			return err
		}
	}
	s.syncLocked() // the copies are durable before the originals go
	old.f.Close()
	if err := os.Remove(filepath.Join(s.dir, segName(old.id))); err != nil {
		return err
	}
	syncDir(s.dir)
	s.segs = s.segs[1:]
	s.total -= old.size
	return nil
}

// content reads a stored version whole.
func (s *Store) content(v string) (string, error) {
	h, ok := parseVersion(v)
	s.mu.Lock()
	defer s.mu.Unlock()
	ver := s.versions[h]
	if !ok || ver == nil {
		return "", fmt.Errorf("version %.12s is no longer in the store", v)
	}
	files := map[int64]*os.File{}
	for _, seg := range s.segs {
		files[seg.id] = seg.f
	}
	var b bytes.Buffer
	b.Grow(int(ver.size))
	for _, c := range ver.chunks {
		at := s.chunkAt[c]
		f := files[at.seg]
		if f == nil {
			return "", fmt.Errorf("version %.12s lost a chunk", v)
		}
		if _, err := io.Copy(&b, io.NewSectionReader(f, at.off, at.n)); err != nil {
			return "", err
		}
	}
	if int64(b.Len()) != ver.size || sha256.Sum256(b.Bytes()) != h {
		return "", fmt.Errorf("version %.12s is damaged in the store", v)
	}
	return b.String(), nil
}

// snapshot is a consistent copy of the log's metadata.
type snapshot struct {
	records     []Record
	checkpoints []Checkpoint
	commands    []Command
}

func (s *Store) snapshot() snapshot {
	s.settle()
	s.mu.Lock()
	defer s.mu.Unlock()
	return snapshot{slices.Clone(s.records), slices.Clone(s.checkpoints), slices.Clone(s.commands)}
}

// checkpoint finds one by id.
func (sn snapshot) checkpoint(id string) (Checkpoint, bool) {
	for _, c := range sn.checkpoints {
		if c.ID == id {
			return c, true
		}
	}
	return Checkpoint{}, false
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
