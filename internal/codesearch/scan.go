package codesearch

import (
	"bytes"
	"context"
	"io"
	"runtime"
)

// Scanning one file. A file is read in regions that end at a line break,
// at most regionBytes at a time (a line longer than that grows the
// buffer), so memory per worker is bounded by the region size or the
// longest line, never by the file. Each region is searched in one pass of
// the matcher; lines are counted only when a hit's line number is needed.

const (
	binaryProbe  = 8 << 10 // a NUL in the first 8 KiB marks a binary file
	regionBytes  = 1 << 20
	keepBufBytes = 4 << 20 // a buffer grown past this (a long line) is dropped after the file
	minBuf       = 16 << 10
)

// mode is what grep needs from each file.
type mode int8

const (
	modeHits  mode = iota // matching lines with their text
	modeFiles             // whether it matches at all: stop at the first match
	modeCount             // how many lines match
)

// fileResult is what one file yielded.
type fileResult struct {
	count int   // matching lines (modeFiles: 1 when the file matches)
	hits  []Hit // at most keep, in line order; Path is left to the caller
}

// scanner searches files; each worker has its own and reuses its buffer.
type scanner struct {
	m       *matcher
	mode    mode
	context int
	buf     []byte
	dfa     *lazyDFA // built on first use, when m has a DFA program
}

// lazyDFA is the worker's DFA, or nil when the expression has none.
func (s *scanner) lazyDFA() *lazyDFA {
	if s.dfa == nil && s.m.dfa != nil {
		s.dfa = newLazyDFA(s.m.dfa)
	}
	return s.dfa
}

// fileScan is the state of one file's scan.
type fileScan struct {
	keep    int // hits whose text to keep
	res     fileResult
	line    int   // line number at counted
	counted int   // position in the region up to which lines are counted
	pending []int // indexes of hits still short of after-context lines
}

// scan searches r, a regular file of the given size (read no further),
// keeping the text of at most keep hits. binary reports a file skipped for
// a NUL byte in its first 8 KiB.
func (s *scanner) scan(ctx context.Context, r io.Reader, size int64, keep int) (res fileResult, binary bool, err error) {
	buf := s.buffer(size)
	defer s.release()
	fs := &fileScan{keep: keep, line: 1}
	n, pos := 0, 0
	var read int64
	eof, first := false, true
	for {
		if err := ctx.Err(); err != nil {
			return fileResult{}, false, err
		}
		for n < len(buf) && !eof {
			k, err := r.Read(buf[n:])
			n, read = n+k, read+int64(k)
			switch {
			case err == io.EOF || (size > 0 && read >= size):
				eof = true
			case err != nil:
				return fileResult{}, false, err
			}
		}
		if first {
			if bytes.IndexByte(buf[:min(n, binaryProbe)], 0) >= 0 {
				return fileResult{}, true, nil
			}
			first = false
		}
		end := n
		if !eof {
			i := bytes.LastIndexByte(buf[pos:n], '\n')
			if i < 0 { // a line longer than the buffer
				buf = s.grow(n)
				continue
			}
			end = pos + i + 1
		}
		stop := s.region(ctx, fs, buf[:end], pos, eof)
		if err := ctx.Err(); err != nil {
			return fileResult{}, false, err
		}
		if stop || eof {
			return fs.res, false, nil
		}
		keepFrom := end
		if s.context > 0 {
			keepFrom = linesBefore(buf[:end], end, s.context)
		}
		n = copy(buf, buf[keepFrom:n])
		pos = end - keepFrom
		fs.counted = pos
	}
}

// buffer returns the worker's buffer, sized for a file of size bytes.
func (s *scanner) buffer(size int64) []byte {
	want := int(max(min(size+1, regionBytes), minBuf))
	if cap(s.buf) < want {
		s.buf = make([]byte, want)
	}
	s.buf = s.buf[:cap(s.buf)]
	return s.buf
}

// grow doubles the buffer, keeping its first n bytes.
func (s *scanner) grow(n int) []byte {
	b := make([]byte, 2*len(s.buf))
	copy(b, s.buf[:n])
	s.buf = b
	return b
}

// release drops a buffer that a long line grew past keepBufBytes.
func (s *scanner) release() {
	if cap(s.buf) > keepBufBytes {
		s.buf = nil
	}
}

// sliceBytes is how much of a region an expression without a literal
// (Go's NFA, tens of MB/s) searches between checks for cancellation.
const sliceBytes = 64 << 10

// region searches hay[pos:], which ends at a line end (or the end of the
// file when eof); hay[:pos] holds the context lines before it. It reports
// whether the file needs no more searching (a match in modeFiles, or ctx
// cancelled).
func (s *scanner) region(ctx context.Context, fs *fileScan, hay []byte, pos int, eof bool) (stop bool) {
	s.fillPending(fs, hay, pos, eof)
	var st findState
	sparse := s.m.sparseIn(hay[pos:])
	for pos < len(hay) {
		end := s.sliceEnd(hay, pos, sparse)
		m, ok := s.m.next(hay[:end], pos, &st, sparse, s.lazyDFA())
		if !ok {
			if end == len(hay) {
				break
			}
			if pos = end; ctx.Err() != nil {
				return true
			}
			runtime.Gosched() // see walker.work
			continue
		}
		fs.res.count++
		if s.mode == modeFiles {
			return true
		}
		if s.mode == modeHits && len(fs.res.hits) < fs.keep {
			s.record(fs, hay, m, eof)
		}
		pos = m.end + 1
	}
	if s.mode == modeHits && len(fs.res.hits) < fs.keep {
		fs.line += bytes.Count(hay[fs.counted:], newline)
	}
	return false
}

// sliceEnd is where the search from pos stops before checking ctx: the
// region's end, or for an expression searched without a literal the first
// line end after sliceBytes (matches never span lines, so a slice ending
// at a line end finds what the whole region would).
func (s *scanner) sliceEnd(hay []byte, pos int, sparse bool) int {
	if s.m.find != nil || sparse || len(hay)-pos <= sliceBytes {
		return len(hay)
	}
	if e := lineAt(hay, pos+sliceBytes); e < len(hay) {
		return e + 1
	}
	return len(hay)
}

var newline = []byte{'\n'}

// record keeps one hit: its line number, its text, and its context lines.
func (s *scanner) record(fs *fileScan, hay []byte, m match, eof bool) {
	fs.line += bytes.Count(hay[fs.counted:m.start], newline)
	fs.counted = m.start
	h := Hit{Line: fs.line, Text: window(trimCR(hay[m.start:m.end]), m.at-m.start)}
	if s.context > 0 {
		for i := linesBefore(hay, m.start, s.context); i < m.start; {
			l := lineAt(hay, i)
			h.Before = append(h.Before, headText(trimCR(hay[i:l])))
			i = l + 1
		}
		h.After = s.after(hay, m.end+1, s.context, nil)
	}
	fs.res.hits = append(fs.res.hits, h)
	if len(h.After) < s.context && !eof { // the rest is in the next region
		fs.pending = append(fs.pending, len(fs.res.hits)-1)
	}
}

// after appends to out up to want lines of hay starting at from.
func (s *scanner) after(hay []byte, from, want int, out []string) []string {
	for i := from; i < len(hay) && len(out) < want; {
		l := lineAt(hay, i)
		out = append(out, headText(trimCR(hay[i:l])))
		i = l + 1
	}
	return out
}

// fillPending completes the after-context of hits near the end of the
// previous region from the first lines of this one.
func (s *scanner) fillPending(fs *fileScan, hay []byte, pos int, eof bool) {
	var still []int
	for _, idx := range fs.pending {
		h := &fs.res.hits[idx]
		h.After = s.after(hay, pos, s.context, h.After)
		if len(h.After) < s.context && !eof {
			still = append(still, idx)
		}
	}
	fs.pending = still
}

// lineAt is the end (index of the "\n", or len) of the line starting at i.
func lineAt(hay []byte, i int) int {
	if j := bytes.IndexByte(hay[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(hay)
}

// linesBefore is the start of the line n lines before the line starting
// at pos (or 0).
func linesBefore(hay []byte, pos, n int) int {
	i := pos
	for ; n > 0 && i > 0; n-- {
		j := bytes.LastIndexByte(hay[:i-1], '\n')
		i = j + 1
	}
	return i
}

func trimCR(b []byte) []byte { return bytes.TrimSuffix(b, []byte{'\r'}) }
