package shellsession

// Stripper turns a terminal's raw output into the text the model reads: a
// byte-serial state machine over the escape syntax of ECMA-48 (the VT
// parser's ground, escape, CSI and control-string states), so a sequence
// split across two reads is removed just the same and the result does not
// depend on how the output was chunked.
//
// What it does to the stream:
//   - escape sequences go: CSI (ESC [ … final), OSC (ESC ] … BEL or ESC \),
//     DCS, SOS, PM and APC strings (ESC P/X/^/_ … ESC \), and the short
//     escapes (ESC 7, ESC (B, ESC M, …);
//   - CR LF and a lone CR become LF (a progress bar's redraws become lines
//     instead of overwriting each other, which the model could not see);
//   - the other C0 controls and DEL go (BEL, backspace, NUL); TAB and LF
//     stay; bytes from 0x80 up pass untouched (UTF-8 text).
//
// A sequence that runs past its bound (a CSI longer than maxCSI bytes, a
// string longer than maxString) or a string that meets a line end is
// abandoned and what follows is shown: garbage must not hide the rest of
// the output from the model. (A terminal would hide the lines until a BEL
// or ST; binary output — `cat` of an image, 1 MB of /dev/urandom — opens
// such strings by chance, and then the `echo done` after it vanished. No
// real title, hyperlink or DCS holds a line end.) The
// session's prompt markers (OSC promptOSC;P and ;C) are reported through
// the mark callback as they end.
type Stripper struct {
	state  stripState
	n      int                      // bytes in the current sequence
	osc    [len(promptOSC) + 3]byte // the start of an OSC payload, for the markers
	oscLen int
	lastCR bool // the previous byte was a CR, already emitted as LF
	reread bool // the byte just stepped broke its sequence: ground reads it again
}

type stripState uint8

const (
	ground    stripState = iota
	escape               // after ESC
	escInter             // ESC and intermediate bytes (0x20–0x2F)
	csi                  // ESC [ and parameter or intermediate bytes
	oscString            // ESC ] payload
	ctlString            // ESC P, X, ^ or _ payload
	stringEsc            // ESC inside a string: ST (ESC \) or a new escape
)

// Bounds past which a sequence is malformed (real ones are far shorter:
// a CSI has a few parameters, an OSC title or hyperlink a few hundred
// bytes).
const (
	maxCSI    = 256
	maxString = 4096
)

// Mark is a prompt marker the session's shell prints (see shell.go).
type Mark uint8

// The markers: the primary prompt (the shell waits for a command) and the
// continuation prompt (a command is incomplete: an open quote, a heredoc,
// a loop).
const (
	MarkPrompt Mark = iota + 1
	MarkContinuation
)

var lf = []byte{'\n'}

// Write feeds p through the state machine. emit receives the visible bytes
// in order (sub-slices of p, or a shared LF); mark receives each prompt
// marker as its sequence ends, with the index in p of its last byte.
func (s *Stripper) Write(p []byte, emit func([]byte), mark func(m Mark, at int)) {
	start := -1 // start of the pending visible run in p
	flush := func(end int) {
		if start >= 0 && end > start {
			emit(p[start:end])
		}
		start = -1
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if s.state == ground {
			if printable(c) {
				if start < 0 {
					start = i
				}
				s.lastCR = false
				continue
			}
			flush(i)
			s.control(c, emit)
			continue
		}
		if m := s.step(c); m != 0 && mark != nil {
			mark(m, i)
		}
		if s.reread {
			s.reread = false
			i-- // the byte that broke the sequence is read again in ground
		}
	}
	flush(len(p))
}

// printable is what ground passes through as text: TAB, the printable
// ASCII range, and every byte from 0x80 (UTF-8).
func printable(c byte) bool { return c == '\t' || (c >= 0x20 && c != 0x7f) }

// control handles a non-printable byte in ground.
func (s *Stripper) control(c byte, emit func([]byte)) {
	switch c {
	case 0x1b:
		s.begin(escape)
	case '\r':
		emit(lf)
		s.lastCR = true
		return
	case '\n':
		if !s.lastCR {
			emit(lf)
		}
	}
	s.lastCR = false
}

func (s *Stripper) begin(st stripState) {
	s.state, s.n = st, 0
}

// finish ends the sequence with the current byte.
func (s *Stripper) finish() { s.state, s.n = ground, 0 }

// reject ends the sequence before the current byte, which is not part of
// it: ground reads it again.
func (s *Stripper) reject() { s.finish(); s.reread = true }

// step advances a sequence by one byte and returns the marker it ended,
// if any.
func (s *Stripper) step(c byte) Mark {
	s.n++
	switch s.state {
	case escape:
		s.afterEsc(c)
	case escInter:
		switch {
		case c >= 0x20 && c <= 0x2f:
		case c >= 0x30 && c <= 0x7e:
			s.finish() // the final byte
		default:
			s.reject()
		}
	case csi:
		switch {
		case c >= 0x40 && c <= 0x7e:
			s.finish() // the final byte
		case c >= 0x20 && c <= 0x3f && s.n <= maxCSI:
		default:
			s.reject()
		}
	case oscString, ctlString:
		return s.inString(c)
	case stringEsc:
		if c == '\\' {
			return s.endString()
		}
		s.begin(escape) // ESC then something else: a new escape sequence
		s.afterEsc(c)
	}
	return 0
}

// afterEsc dispatches the byte after ESC.
func (s *Stripper) afterEsc(c byte) {
	switch {
	case c == '[':
		s.begin(csi)
	case c == ']':
		s.begin(oscString)
		s.oscLen = 0
	case c == 'P' || c == 'X' || c == '^' || c == '_':
		s.begin(ctlString)
		s.oscLen = -1 // not an OSC: no marker
	case c >= 0x20 && c <= 0x2f:
		s.state = escInter
	case c >= 0x30 && c <= 0x7e:
		s.finish() // a two-byte escape
	default: // a control or a byte ≥ 0x7f: not an escape after all
		s.reject()
	}
}

// inString consumes a byte of an OSC or control string.
func (s *Stripper) inString(c byte) Mark {
	switch {
	case c == 0x07 && s.state == oscString: // BEL ends an OSC (xterm)
		return s.endString()
	case c == 0x1b:
		s.state = stringEsc
	case c == 0x18 || c == 0x1a: // CAN, SUB cancel the sequence
		s.finish()
	case c == '\n' || c == '\r': // a line end: garbage, not a string
		s.reject()
	case s.n > maxString:
		s.reject()
	case s.oscLen >= 0 && s.oscLen < len(s.osc):
		s.osc[s.oscLen] = c
		s.oscLen++
	default:
		s.oscLen = len(s.osc) + 1 // longer than any marker
	}
	return 0
}

// endString ends an OSC or control string and names the marker it was.
func (s *Stripper) endString() Mark {
	s.finish()
	if s.oscLen < 0 || s.oscLen > len(s.osc) {
		return 0
	}
	switch string(s.osc[:s.oscLen]) {
	case promptOSC + ";P":
		return MarkPrompt
	case promptOSC + ";C":
		return MarkContinuation
	}
	return 0
}
