package files

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"
	"unsafe"

	"steerable.dev/sidecar/internal/clip"
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
	// SizeHint is the file's size from its stat, 0 if unknown. A file of
	// at most smallFile bytes is then read into one buffer of that size
	// and hashed inline.
	SizeHint int64
}

// smallFile is the largest file ScanText reads whole: below it a second
// goroutine and the pipe's buffers cost more than the overlap of hashing
// and checking saves, and the text needs no copy.
const smallFile = 1 << 20

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
	if opt.SizeHint > 0 && opt.SizeHint <= smallFile {
		b, err := readAll(r, opt.SizeHint, smallFile)
		if err != nil {
			return Text{}, err
		}
		if len(b) <= smallFile {
			hash.Write(b)
			return textOf(b, opt)
		}
		r = io.MultiReader(bytes.NewReader(b), r) // it grew since the stat: stream it
	}
	s := scanner{first: max(opt.Offset, 1), line: 1, view: clip.NewWriter(readClip)}
	if opt.Limit > 0 {
		s.last = s.first + opt.Limit - 1
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

// scanner is ScanText's state between chunks.
type scanner struct {
	first, last int // selected lines; last 0 = to the end
	line        int // line of the next byte
	bytes       int64
	endsInLF    bool
	sniff       []byte // the first 512 bytes, to name the type of a binary file
	utf8        utf8Check
	view        *clip.Writer // the selected lines, clipped
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
		s.view.Write(p)
		s.line += bytes.Count(p, []byte{'\n'})
		return nil
	}
	s.selectLines(p)
	return nil
}

// selectLines passes the bytes of the selected lines to the view.
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
			s.view.Write(p[:end])
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
	content, dropped := s.view.Result()
	t.Content, t.Truncated = content, int(dropped)
	s.view.Release()
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

// textOf is ScanText's result for a whole file in memory. The content
// shares b's bytes when nothing is clipped; b must not change afterwards.
func textOf(b []byte, opt ScanOptions) (Text, error) {
	all := unsafe.String(unsafe.SliceData(b), len(b))
	if err := CheckText(all); err != nil {
		return Text{}, err
	}
	t := Text{Bytes: int64(len(b)), FirstLine: max(opt.Offset, 1), TotalLines: strings.Count(all, "\n")}
	if len(all) > 0 && all[len(all)-1] != '\n' {
		t.TotalLines++
	}
	lastShown := t.TotalLines
	if opt.Limit > 0 {
		lastShown = min(t.FirstLine+opt.Limit-1, t.TotalLines)
	}
	t.Shown = max(lastShown-t.FirstLine+1, 0)
	t.Content, t.Truncated = Clip(lineRange(all, t.FirstLine, opt.Limit))
	return t, nil
}

// lineRange is the text of limit lines (0: all) from the 1-based line
// first.
func lineRange(s string, first, limit int) string {
	start := 0
	for range first - 1 {
		j := strings.IndexByte(s[start:], '\n')
		if j < 0 {
			return ""
		}
		start += j + 1
	}
	if limit <= 0 {
		return s[start:]
	}
	end := start
	for range limit {
		j := strings.IndexByte(s[end:], '\n')
		if j < 0 {
			return s[start:]
		}
		end += j + 1
	}
	return s[start:end]
}

// CheckText applies ScanText's text check to content already in memory:
// UTF-8 without NUL bytes, else *NotTextError.
func CheckText(s string) error {
	switch {
	case strings.IndexByte(s, 0) >= 0:
		return &NotTextError{Type: sniff(s), Reason: "NUL bytes"}
	case !utf8.ValidString(s):
		return &NotTextError{Type: sniff(s), Reason: "invalid UTF-8"}
	}
	return nil
}

// sniff names the content type of s from its first 512 bytes, as
// net/http does.
func sniff(s string) string { return http.DetectContentType([]byte(s[:min(len(s), 512)])) }
