package shellsession

// Ring keeps the last size bytes of a session's text. Positions are
// absolute offsets into everything ever written, so a reader that keeps
// its offset learns exactly how many bytes it missed when the ring
// overwrote them: output is dropped, never silently.
type Ring struct {
	buf  []byte // grows up to size, then wraps
	size int
	base int64 // the offset of buf[0]'s first byte: offset o lives at buf[(o-base) % size]
	end  int64 // offset just past the last byte written
}

// NewRing keeps at most size bytes (size ≥ 1). Memory is taken as output
// arrives, so an idle session costs little.
func NewRing(size int) *Ring {
	return &Ring{size: size}
}

// Write appends p, overwriting the oldest bytes once the ring is full.
func (r *Ring) Write(p []byte) {
	if len(p) >= r.size { // only the last size bytes survive: refill from the start
		r.end += int64(len(p))
		r.buf = append(r.buf[:0], p[len(p)-r.size:]...)
		r.base = r.end - int64(r.size)
		return
	}
	if room := r.size - len(r.buf); room > 0 {
		k := min(room, len(p))
		r.buf = append(r.buf, p[:k]...)
		r.end += int64(k)
		p = p[k:]
	}
	for len(p) > 0 { // full: overwrite the oldest bytes
		k := copy(r.buf[r.index(r.end):], p)
		r.end += int64(k)
		p = p[k:]
	}
}

func (r *Ring) index(offset int64) int { return int((offset - r.base) % int64(r.size)) }

// End is the offset just past the newest byte.
func (r *Ring) End() int64 { return r.end }

// Start is the offset of the oldest byte still kept.
func (r *Ring) Start() int64 { return r.end - int64(len(r.buf)) }

// Since returns a copy of the bytes from offset from on, and how many bytes
// after from the ring no longer holds (dropped).
func (r *Ring) Since(from int64) (text []byte, dropped int64) {
	if start := r.Start(); from < start {
		dropped, from = start-from, start
	}
	n := int(r.end - from)
	if n <= 0 {
		return nil, dropped
	}
	at := r.index(from)
	first := min(n, len(r.buf)-at)
	out := make([]byte, 0, n)
	out = append(out, r.buf[at:at+first]...)
	return append(out, r.buf[:n-first]...), dropped
}
