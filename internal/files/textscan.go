package files

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"sync"
	"unicode/utf8"
)

// chunkSize is how much ScanText reads at a time.
const chunkSize = 256 << 10

// NotTextError refuses a file that is not UTF-8 text.
type NotTextError struct {
	Type   string // detected content type (net/http sniffing)
	Reason string // "NUL bytes" or "invalid UTF-8"
}

func (e *NotTextError) Error() string {
	return fmt.Sprintf("not a text file (%s, %s)", e.Type, e.Reason)
}

// ScanOptions select lines of the file; the zero value selects all.
type ScanOptions struct {
	Offset int // 1-based first line shown; 0 = 1
	Limit  int // lines shown; 0 = to the end
}

// Text is what ScanText saw.
type Text struct {
	Content    string // the selected lines, clipped
	Truncated  int    // characters the marker replaced
	TotalLines int    // lines in the whole file (a final line without \n counts)
	Bytes      int64  // bytes in the whole file
	FirstLine  int    // 1-based line where Content starts
	Shown      int    // lines the selection covers
}

// Partial reports that Content is not the whole file: clipped, or a range
// that leaves lines out.
func (t Text) Partial() bool {
	return t.Truncated > 0 || t.FirstLine > 1 || t.FirstLine+t.Shown-1 < t.TotalLines
}

// ScanText reads r to its end in one pass with bounded memory: every byte
// goes to hash (the version is always of the whole file), the text is
// checked to be UTF-8 without NUL bytes (else *NotTextError, at the first
// bad chunk), lines are counted, and the selected lines are kept clipped.
func ScanText(r io.Reader, hash io.Writer, opt ScanOptions) (Text, error) {
	s := scanner{first: max(opt.Offset, 1), line: 1}
	if opt.Limit > 0 {
		s.last = s.first + opt.Limit - 1
	}
	if end, err := s.head(r, hash); end || err != nil {
		if err != nil {
			return Text{}, err
		}
		return s.finish()
	}
	h := startHashing(hash)
	defer h.stop()
	for {
		buf := h.buffer()
		n, err := r.Read(buf)
		if n > 0 {
			h.hash(buf[:n])
			if terr := s.feed(buf[:n]); terr != nil {
				return Text{}, terr
			}
		} else {
			h.release(buf)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return Text{}, err
		}
	}
	h.stop() // every chunk hashed before the caller reads the version
	return s.finish()
}

// headSize is the part of a file ScanText reads before it starts the hash
// pipe: a file that fits (most source files) is read, hashed and checked on
// the caller's goroutine with one pooled buffer, so 64 reads in flight hold
// 4 MiB, not the pipe's 64 MiB.
const headSize = 64 << 10

var heads = sync.Pool{New: func() any { return new([headSize]byte) }}

// head scans the first headSize bytes; end reports that the file ended
// within them.
func (s *scanner) head(r io.Reader, hash io.Writer) (end bool, err error) {
	buf := heads.Get().(*[headSize]byte)
	defer heads.Put(buf)
	n, err := io.ReadFull(r, buf[:])
	if n > 0 {
		hash.Write(buf[:n])
		if terr := s.feed(buf[:n]); terr != nil {
			return true, terr
		}
	}
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return true, nil
	case err != nil:
		return true, err
	}
	return false, nil
}

// scanner is ScanText's state between chunks.
type scanner struct {
	first, last int // selected lines; last 0 = to the end
	line        int // line of the next byte
	bytes       int64
	endsInLF    bool
	sniff       []byte // the first 512 bytes, to name the type of a binary file
	utf8        utf8Check
	clip        clipper
}

func (s *scanner) feed(p []byte) error {
	if len(s.sniff) < 512 {
		s.sniff = append(s.sniff, p[:min(len(p), 512-len(s.sniff))]...)
	}
	s.bytes += int64(len(p))
	s.endsInLF = p[len(p)-1] == '\n'
	if bytes.IndexByte(p, 0) >= 0 {
		return &NotTextError{Type: http.DetectContentType(s.sniff), Reason: "NUL bytes"}
	}
	if !s.utf8.feed(p) {
		return &NotTextError{Type: http.DetectContentType(s.sniff), Reason: "invalid UTF-8"}
	}
	if s.first == 1 && s.last == 0 { // the whole file: the common case, kept fast
		s.clip.add(p)
		s.line += bytes.Count(p, []byte{'\n'})
		return nil
	}
	s.selectLines(p)
	return nil
}

// selectLines passes the bytes of the selected lines to the clipper.
func (s *scanner) selectLines(p []byte) {
	for len(p) > 0 {
		if s.last != 0 && s.line > s.last {
			s.line += bytes.Count(p, []byte{'\n'})
			return
		}
		end := len(p)
		nl := bytes.IndexByte(p, '\n')
		if nl >= 0 {
			end = nl + 1
		}
		if s.line >= s.first {
			s.clip.add(p[:end])
		}
		if nl >= 0 {
			s.line++
		}
		p = p[end:]
	}
}

func (s *scanner) finish() (Text, error) {
	if !s.utf8.complete() {
		return Text{}, &NotTextError{Type: http.DetectContentType(s.sniff), Reason: "invalid UTF-8"}
	}
	t := Text{Bytes: s.bytes, TotalLines: s.line - 1, FirstLine: s.first}
	if s.bytes > 0 && !s.endsInLF {
		t.TotalLines++
	}
	lastShown := t.TotalLines
	if s.last != 0 {
		lastShown = min(s.last, t.TotalLines)
	}
	t.Shown = max(lastShown-s.first+1, 0)
	t.Content, t.Truncated = s.clip.result()
	return t, nil
}

// utf8Check validates UTF-8 split across chunks: a rune cut at a chunk's
// end is carried into the next.
type utf8Check struct {
	carry [utf8.UTFMax]byte
	n     int
}

func (u *utf8Check) feed(p []byte) bool {
	for u.n > 0 && len(p) > 0 && !utf8.FullRune(u.carry[:u.n]) {
		u.carry[u.n] = p[0]
		u.n++
		p = p[1:]
	}
	if u.n > 0 {
		if !utf8.FullRune(u.carry[:u.n]) {
			return true // p ran out; wait for more
		}
		if r, size := utf8.DecodeRune(u.carry[:u.n]); (r == utf8.RuneError && size <= 1) || size != u.n {
			return false
		}
		u.n = 0
	}
	cut := len(p)
	for i := len(p) - 1; i >= 0 && i >= len(p)-(utf8.UTFMax-1); i-- {
		if utf8.RuneStart(p[i]) {
			if !utf8.FullRune(p[i:]) {
				cut = i
			}
			break
		}
	}
	if !utf8.Valid(p[:cut]) {
		return false
	}
	u.n = copy(u.carry[:], p[cut:])
	return true
}

// complete reports that no rune was left unfinished at the end.
func (u *utf8Check) complete() bool { return u.n == 0 }

// CheckText applies ScanText's text check to content already in memory:
// UTF-8 without NUL bytes, else *NotTextError.
func CheckText(b []byte) error {
	switch {
	case bytes.IndexByte(b, 0) >= 0:
		return &NotTextError{Type: http.DetectContentType(b), Reason: "NUL bytes"}
	case !utf8.Valid(b):
		return &NotTextError{Type: http.DetectContentType(b), Reason: "invalid UTF-8"}
	}
	return nil
}
