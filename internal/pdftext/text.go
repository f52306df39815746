package pdftext

import (
	"context"
	"fmt"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
)

// maxOps bounds the content operators interpreted on one page; a page
// over it keeps the text read so far and says so.
const maxOps = 2_000_000

// maxPageChars bounds the text kept from one page.
const maxPageChars = 1 << 20

// Page is one page's text.
type Page struct {
	Number int    // 1-based
	Text   string // "" for a page without a text layer (a scan)
	// Stopped says why the page's text is incomplete ("" when it is not).
	Stopped string
}

// Text reads the text of pages first..last (1-based, inclusive).
func (d *Doc) Text(ctx context.Context, first, last int) (pages []Page, err error) {
	defer guard(ctx, &err)
	for n := first; n <= last && n <= len(d.pages); n++ {
		pages = append(pages, pageText(ctx, d.pages[n-1].page, n))
	}
	return pages, nil
}

// pageText interprets one page's content; a malformed page keeps what was
// read before the fault and says what went wrong, the others are
// unaffected.
func pageText(ctx context.Context, p pdf.Page, n int) (out Page) {
	out.Number = n
	var l layout
	defer func() {
		if r := recover(); r != nil {
			if a, ok := r.(abort); ok {
				panic(a) // the whole call ends
			}
			out.Stopped = fmt.Sprintf("the page's content is malformed (%v)", r)
			if _, budget := r.(budgetError); budget {
				out.Stopped = string(r.(budgetError))
			}
		}
		out.Text = strings.TrimSpace(l.b.String())
	}()
	contents := p.V.Key("Contents")
	if contents.Kind() == pdf.Null {
		return out
	}
	s := newTextState(ctx, p, &l)
	pdf.Interpret(contents, s.op)
	return out
}

// budgetError stops a page that exceeds a bound.
type budgetError string

// matrix is a PDF transformation matrix [a b c d e f].
type matrix [6]float64

var identity = matrix{1, 0, 0, 1, 0, 0}

// mul is m × n (m applied first).
func (m matrix) mul(n matrix) matrix {
	return matrix{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

// gstate is the part of the graphics and text state that places text.
type gstate struct {
	ctm                       matrix
	tc, tw, th, tl, tfs, rise float64
	font                      *font
}

// font is a page font's decoder and glyph widths (thousandths of an em,
// from code first on; none for fonts that give no /Widths).
type font struct {
	enc    pdf.TextEncoding
	first  int
	widths []float64
}

// textState interprets a content stream's text operators.
type textState struct {
	ctx     context.Context
	page    pdf.Page
	fonts   map[string]*font
	g       gstate
	stack   []gstate
	tm, tlm matrix
	ops     int
	l       *layout
	argsBuf []pdf.Value
}

func newTextState(ctx context.Context, p pdf.Page, l *layout) *textState {
	return &textState{ctx: ctx, page: p, fonts: map[string]*font{}, g: gstate{ctm: identity, th: 1}, tm: identity, tlm: identity, l: l}
}

// args pops the operands of the current operator, bottom first.
func (s *textState) args(stk *pdf.Stack) []pdf.Value {
	n := stk.Len()
	s.argsBuf = s.argsBuf[:0]
	for range n {
		s.argsBuf = append(s.argsBuf, pdf.Value{})
	}
	for i := n - 1; i >= 0; i-- {
		s.argsBuf[i] = stk.Pop()
	}
	return s.argsBuf
}

func (s *textState) op(stk *pdf.Stack, op string) {
	if s.ops++; s.ops%4096 == 0 {
		if err := s.ctx.Err(); err != nil {
			panic(abort{err})
		}
		if s.ops > maxOps {
			panic(budgetError("the page has more than 2,000,000 content operators; the rest of its text is not shown"))
		}
	}
	a := s.args(stk)
	switch op {
	case "q":
		if len(s.stack) < 256 {
			s.stack = append(s.stack, s.g)
		}
	case "Q":
		if n := len(s.stack); n > 0 {
			s.g, s.stack = s.stack[n-1], s.stack[:n-1]
		}
	case "cm":
		if m, ok := matrixOf(a); ok {
			s.g.ctm = m.mul(s.g.ctm)
		}
	case "BT":
		s.tm, s.tlm = identity, identity
	case "Tc", "Tw", "Tz", "TL", "Ts":
		s.setParam(op, a)
	case "Tf":
		if len(a) == 2 {
			s.g.font, s.g.tfs = s.font(a[0].Name()), a[1].Float64()
		}
	case "Td", "TD":
		if len(a) == 2 {
			if op == "TD" {
				s.g.tl = -a[1].Float64()
			}
			s.nextLine(a[0].Float64(), a[1].Float64())
		}
	case "Tm":
		if m, ok := matrixOf(a); ok {
			s.tm, s.tlm = m, m
		}
	case "T*":
		s.nextLine(0, -s.g.tl)
	default:
		s.showOp(op, a)
	}
}

// showOp runs the text-showing operators.
func (s *textState) showOp(op string, a []pdf.Value) {
	switch {
	case op == "Tj" && len(a) == 1:
		s.show(a[0].RawString())
	case op == "'" && len(a) == 1:
		s.nextLine(0, -s.g.tl)
		s.show(a[0].RawString())
	case op == `"` && len(a) == 3:
		s.g.tw, s.g.tc = a[0].Float64(), a[1].Float64()
		s.nextLine(0, -s.g.tl)
		s.show(a[2].RawString())
	case op == "TJ" && len(a) == 1:
		arr := a[0]
		for i := range arr.Len() {
			if x := arr.Index(i); x.Kind() == pdf.String {
				s.show(x.RawString())
			} else {
				s.advance(-x.Float64() / 1000 * s.g.tfs * s.g.th)
			}
		}
	}
}

func (s *textState) setParam(op string, a []pdf.Value) {
	if len(a) != 1 {
		return
	}
	v := a[0].Float64()
	switch op {
	case "Tc":
		s.g.tc = v
	case "Tw":
		s.g.tw = v
	case "Tz":
		s.g.th = v / 100
	case "TL":
		s.g.tl = v
	case "Ts":
		s.g.rise = v
	}
}

func (s *textState) nextLine(tx, ty float64) {
	s.tlm = matrix{1, 0, 0, 1, tx, ty}.mul(s.tlm)
	s.tm = s.tlm
}

func (s *textState) advance(tx float64) {
	s.tm = matrix{1, 0, 0, 1, tx, 0}.mul(s.tm)
}

// font loads a page font once.
func (s *textState) font(name string) *font {
	if f, ok := s.fonts[name]; ok {
		return f
	}
	var f *font
	if len(s.fonts) < 1024 {
		pf := s.page.Font(name)
		f = &font{enc: pf.Encoder(), first: pf.FirstChar(), widths: pf.Widths()}
		s.fonts[name] = f
	}
	return f
}

// show places one string: a run starting where the text matrix points,
// then the matrix advanced by the glyphs' widths (a font without widths
// counts half an em a character).
func (s *textState) show(raw string) {
	if raw == "" {
		return
	}
	text := raw
	if s.g.font != nil && s.g.font.enc != nil {
		text = s.g.font.enc.Decode(raw)
	}
	trm := matrix{s.g.tfs * s.g.th, 0, 0, s.g.tfs, 0, s.g.rise}.mul(s.tm).mul(s.g.ctm)
	size := math.Hypot(trm[2], trm[3])
	x, y := trm[4], trm[5]
	s.advance(s.width(raw, text))
	end := matrix{s.g.tfs * s.g.th, 0, 0, s.g.tfs, 0, s.g.rise}.mul(s.tm).mul(s.g.ctm)
	s.l.add(run{x: x, y: y, endX: end[4], size: size, text: text})
}

// width is a string's advance in text space.
func (s *textState) width(raw, text string) float64 {
	var w float64
	known := s.g.font != nil && len(s.g.font.widths) > 0
	for i := 0; i < len(raw); i++ {
		gw := 500.0
		if known {
			gw = s.g.font.width(int(raw[i]))
		}
		w += (gw/1000*s.g.tfs + s.g.tc) * s.g.th
		if raw[i] == ' ' {
			w += s.g.tw * s.g.th
		}
	}
	if !known && utf8.RuneCountInString(text) < len(raw) { // multi-byte codes
		w = w * float64(utf8.RuneCountInString(text)) / float64(len(raw))
	}
	return w
}

// width is the width of code, 0 outside the font's range.
func (f *font) width(code int) float64 {
	if i := code - f.first; i >= 0 && i < len(f.widths) {
		return f.widths[i]
	}
	return 0
}

// matrixOf reads six numbers.
func matrixOf(a []pdf.Value) (matrix, bool) {
	if len(a) != 6 {
		return matrix{}, false
	}
	var m matrix
	for i := range m {
		m[i] = a[i].Float64()
	}
	return m, true
}

// run is a string placed on the page.
type run struct {
	x, y, endX, size float64
	text             string
}

// layout joins runs into lines and words by position: a run on another
// baseline starts a line, a gap on the same line is a space.
type layout struct {
	b     strings.Builder
	prev  run
	have  bool
	chars int
}

func (l *layout) add(r run) {
	r.text = strings.Map(func(c rune) rune {
		if unicode.IsControl(c) && c != '\t' {
			return -1
		}
		return c
	}, r.text)
	if r.text == "" {
		return
	}
	if l.chars += len(r.text); l.chars > maxPageChars {
		panic(budgetError("the page holds more than 1 MiB of text; the rest is not shown"))
	}
	if l.have {
		l.b.WriteString(l.separator(r))
	}
	l.b.WriteString(r.text)
	l.prev, l.have = r, true
}

// separator is what goes between the previous run and r.
func (l *layout) separator(r run) string {
	p := l.prev
	em := max(p.size, r.size, 1)
	switch {
	case math.Abs(r.y-p.y) > em*0.5:
		if math.Abs(r.y-p.y) > em*2.2 {
			return "\n\n"
		}
		return "\n"
	case r.x-p.endX > em*0.15, r.x < p.x-em:
		if !strings.HasSuffix(p.text, " ") && !strings.HasPrefix(r.text, " ") {
			return " "
		}
	}
	return ""
}
