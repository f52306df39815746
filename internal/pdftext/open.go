package pdftext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"

	"github.com/ledongthuc/pdf"
)

// ErrEncrypted: the PDF is encrypted in a way its text cannot be read
// (the error wrapping it says which).
var ErrEncrypted = errors.New("the PDF is encrypted")

// MalformedError is a file that is not a readable PDF.
type MalformedError struct{ Reason string }

func (e *MalformedError) Error() string { return "it is not a readable PDF (" + e.Reason + ")" }

// Doc is an open PDF.
type Doc struct {
	data  []byte
	r     *pdf.Reader
	pages []pageRef // in order
	// encrypted: opened with the empty user password (owner-protected).
	encrypted bool
}

// NumPages is the number of pages the page tree holds.
func (d *Doc) NumPages() int { return len(d.pages) }

// Magic reports whether b starts like a PDF.
func Magic(b []byte) bool { return bytes.HasPrefix(b, []byte("%PDF-")) }

// Open parses b's structure and page tree; ctx bounds the work.
func Open(ctx context.Context, b []byte) (d *Doc, err error) {
	defer guard(ctx, &err)
	r, err := pdf.NewReader(&ctxReaderAt{ctx: ctx, b: b}, int64(len(b)))
	switch {
	case errors.Is(err, pdf.ErrInvalidPassword):
		return nil, fmt.Errorf("%w and needs a password to open", ErrEncrypted)
	case err != nil:
		return nil, malformed(ctx, err)
	}
	enc := r.Trailer().Key("Encrypt")
	if enc.Kind() != pdf.Null && enc.Key("R").Int64() == 2 {
		// Revision 2 is 40-bit RC4, whose per-object keys the library
		// derives at the wrong length: every stream would decode as
		// garbage.
		return nil, fmt.Errorf("%w with 40-bit RC4 (revision 2), which this reader does not decrypt", ErrEncrypted)
	}
	d = &Doc{data: b, r: r, encrypted: enc.Kind() != pdf.Null}
	if d.pages, err = pageTree(r); err != nil {
		return nil, err
	}
	return d, nil
}

// malformed names why b is not readable; a context that ended is reported
// as itself.
func malformed(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var m *MalformedError
	if errors.As(err, &m) {
		return m
	}
	return &MalformedError{Reason: err.Error()}
}

// abort is the panic the ReaderAt and the interpreter raise when the
// call's context ends; guard turns it back into the context's error.
type abort struct{ err error }

// guard recovers a panic from inside the library (or our own abort) as an
// error. A runtime error other than a malformed file's (out of memory
// excepted, which cannot be recovered) is still the file's fault here:
// the library indexes what the file declares.
func guard(ctx context.Context, err *error) {
	r := recover()
	if r == nil {
		return
	}
	switch x := r.(type) {
	case abort:
		*err = x.err
	case runtime.Error:
		*err = &MalformedError{Reason: "the parser failed: " + x.Error()}
	default:
		*err = malformed(ctx, fmt.Errorf("%v", x))
	}
}

// ctxReaderAt serves the file from memory and stops the parse (by
// panicking with abort, recovered by guard) once ctx has ended.
type ctxReaderAt struct {
	ctx context.Context
	b   []byte
}

func (c *ctxReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if err := c.ctx.Err(); err != nil {
		panic(abort{err})
	}
	if off < 0 || off >= int64(len(c.b)) {
		return 0, io.EOF
	}
	n := copy(p, c.b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}
