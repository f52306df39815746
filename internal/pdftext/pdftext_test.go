package pdftext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"steerable.dev/sidecar/internal/mediatest"
)

func open(t *testing.T, b []byte) *Doc {
	t.Helper()
	d, err := Open(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestText: each page's text comes back in order, with its words spaced
// and its lines apart, from compressed and plain content streams alike.
func TestText(t *testing.T) {
	for _, uncompressed := range []bool{false, true} {
		d := open(t, mediatest.PDF(mediatest.PDFOptions{Pages: 3, Uncompressed: uncompressed}))
		if d.NumPages() != 3 {
			t.Fatalf("NumPages = %d", d.NumPages())
		}
		pages, err := d.Text(context.Background(), 2, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(pages) != 2 {
			t.Fatalf("%d pages", len(pages))
		}
		for i, p := range pages {
			want := mediatest.PageText(i + 2)
			if p.Number != i+2 || p.Text != want[0]+"\n"+want[1] || p.Stopped != "" {
				t.Errorf("page %d: %+v, want %q", i+2, p, want)
			}
		}
	}
}

// TestScannedPage: a page that is only an image has no text, and the
// pages around it keep theirs.
func TestScannedPage(t *testing.T) {
	d := open(t, mediatest.PDF(mediatest.PDFOptions{Pages: 3, Scanned: map[int]bool{2: true}}))
	pages, err := d.Text(context.Background(), 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	if pages[1].Text != "" || pages[0].Text == "" || pages[2].Text == "" {
		t.Errorf("pages: %+v", pages)
	}
}

// TestEncrypted: a user password is ErrEncrypted saying so; so is 40-bit
// RC4 without one (fpdf's only scheme), which the library cannot decrypt.
func TestEncrypted(t *testing.T) {
	for _, tc := range []struct {
		user, owner, says string
	}{
		{"secret", "owner", "needs a password"},
		{"", "owner", "40-bit RC4"},
	} {
		_, err := Open(context.Background(), mediatest.PDF(mediatest.PDFOptions{Pages: 2, UserPassword: tc.user, OwnerPassword: tc.owner}))
		if !errors.Is(err, ErrEncrypted) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("user %q: %v", tc.user, err)
		}
	}
}

// TestMalformed: what is not a readable PDF is a MalformedError, quickly.
func TestMalformed(t *testing.T) {
	good := mediatest.PDF(mediatest.PDFOptions{Pages: 2})
	xref := bytes.LastIndex(good, []byte("startxref"))
	for name, b := range map[string][]byte{
		"truncated":            good[:len(good)/2],
		"header only":          []byte("%PDF-1.4\n"),
		"garbage after header": append([]byte("%PDF-1.4\n"), bytes.Repeat([]byte("\x00\xff garbage ("), 1000)...),
		"startxref to nowhere": append(append([]byte{}, good[:xref]...), "startxref\n999999999\n%%EOF\n"...),
		"startxref to garbage": append(append([]byte{}, good[:xref]...), "startxref\n20\n%%EOF\n"...),
		"empty":                {},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Open(context.Background(), b)
			var m *MalformedError
			if !errors.As(err, &m) {
				t.Fatalf("Open: %v (%T)", err, err)
			}
			t.Log(err)
		})
	}
}

// TestCancelled: a context that has ended stops the parse with its error.
func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Open(ctx, mediatest.PDF(mediatest.PDFOptions{Pages: 2})); !errors.Is(err, context.Canceled) {
		t.Fatalf("Open: %v", err)
	}
}

func TestParseRange(t *testing.T) {
	for _, tc := range []struct {
		sel         string
		total       int
		first, last int
		err         string
	}{
		{"", 5, 1, 5, ""},
		{"", 100, 1, 20, ""},
		{"3", 5, 3, 3, ""},
		{"2-4", 5, 2, 4, ""},
		{"4-9", 5, 4, 5, ""},
		{"1-20", 100, 1, 20, ""},
		{"1-21", 100, 0, 0, "at most 20"},
		{"6", 5, 0, 0, "has 5 pages"},
		{"0", 5, 0, 0, "not a page"},
		{"3-2", 5, 0, 0, "not a page"},
		{"a", 5, 0, 0, "not a page"},
		{"", 0, 1, 0, ""},
	} {
		first, last, err := ParseRange(tc.sel, tc.total)
		if (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) || first != tc.first || last != tc.last {
			t.Errorf("ParseRange(%q, %d) = %d, %d, %v; want %d, %d, %q", tc.sel, tc.total, first, last, err, tc.first, tc.last, tc.err)
		}
	}
}

// TestSubset: the narrowed file opens with exactly the selected pages, in
// order, with their text, for a cross-reference table and a stream alike;
// poppler's pdfinfo agrees where it is installed.
func TestSubset(t *testing.T) {
	for name, b := range map[string][]byte{
		"table":  mediatest.PDF(mediatest.PDFOptions{Pages: 5}),
		"stream": xrefStreamPDF(5),
	} {
		t.Run(name, func(t *testing.T) {
			d := open(t, b)
			if all, err := d.Subset(1, 5); err != nil || !bytes.Equal(all, b) {
				t.Errorf("every page: not the file itself (%v)", err)
			}
			sub, err := d.Subset(2, 4)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(sub, b) {
				t.Error("the update does not keep the original bytes")
			}
			s := open(t, sub)
			if s.NumPages() != 3 {
				t.Fatalf("subset has %d pages", s.NumPages())
			}
			pages, _ := s.Text(context.Background(), 1, 3)
			for i, p := range pages {
				if want := strings.Join(pageLines(name, i+2), "\n"); p.Text != want {
					t.Errorf("subset page %d: %q, want %q", i+1, p.Text, want)
				}
			}
			pdfinfoPages(t, sub, 3, map[string]string{"table": "595.28 x 841.89 pts (A4)", "stream": "612 x 792 pts (letter)"}[name])
		})
	}
}

func pageLines(kind string, n int) []string {
	if kind == "stream" {
		return []string{fmt.Sprintf("Page %d", n)}
	}
	l := mediatest.PageText(n)
	return l[:]
}

// pdfinfoPages checks the page count with poppler, where it is installed.
func pdfinfoPages(t *testing.T, b []byte, want int, size string) {
	if _, err := exec.LookPath("pdfinfo"); err != nil {
		t.Log("pdfinfo not installed; the library's reading is the check")
		return
	}
	cmd := exec.Command("pdfinfo", "-")
	cmd.Stdin = bytes.NewReader(b)
	out, err := cmd.CombinedOutput()
	if err != nil || !regexp.MustCompile(fmt.Sprintf(`Pages:\s+%d\n`, want)).Match(out) || !strings.Contains(string(out), "Page size:       "+size) || strings.Contains(string(out), "Syntax Error") {
		t.Errorf("pdfinfo: %v\n%s", err, out)
	}
}

// xrefStreamPDF is a PDF of n pages whose cross-reference is a stream
// (PDF 1.5), written by hand: fpdf writes tables only.
func xrefStreamPDF(n int) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.5\n")
	var offs []int
	obj := func(body string) {
		offs = append(offs, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offs), body)
	}
	kids := make([]string, n)
	for i := range n {
		kids[i] = fmt.Sprintf("%d 0 R", 4+2*i)
	}
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	for i := range n {
		content := fmt.Sprintf("BT /F1 12 Tf 72 720 Td (Page %d) Tj ET", i+1)
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i))
		obj(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content))
	}
	xrefAt := b.Len()
	id := len(offs) + 1
	var data []byte
	data = append(data, 0, 0, 0, 0, 0, 0xff, 0xff)
	for _, o := range append(offs, xrefAt) {
		data = append(data, 1, byte(o>>24), byte(o>>16), byte(o>>8), byte(o), 0, 0)
	}
	fmt.Fprintf(&b, "%d 0 obj\n<< /Type /XRef /Size %d /W [1 4 2] /Root 1 0 R /Length %d >>\nstream\n", id, id+1, len(data))
	b.Write(data)
	fmt.Fprintf(&b, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", xrefAt)
	return b.Bytes()
}

// FuzzOpen drives arbitrary bytes through every entry point: an error or
// a result, never a panic or a hang (the fuzzer's per-input timeout), and
// never past the context's deadline by much.
func FuzzOpen(f *testing.F) {
	f.Add(mediatest.PDF(mediatest.PDFOptions{Pages: 2, Uncompressed: true}))
	f.Add(mediatest.PDF(mediatest.PDFOptions{Pages: 1}))
	f.Add(xrefStreamPDF(2))
	f.Add([]byte("%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 1 0 R>>endobj\ntrailer<</Root 1 0 R>>\nstartxref\n9\n%%EOF"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		d, err := Open(ctx, b)
		if err != nil {
			return
		}
		if _, err := d.Text(ctx, 1, min(d.NumPages(), MaxPages)); err != nil {
			return
		}
		if d.NumPages() > 1 {
			d.Subset(1, 1)
		}
	})
}

// TestHostileCrossReference: cross-references that declared huge tables,
// zero-width or enormous entries, or a /Prev loop made the parser allocate
// gigabytes or loop forever (third_party/pdf/PATCHED.md); each is now a
// MalformedError, at once.
func TestHostileCrossReference(t *testing.T) {
	stream := xrefStreamPDF(2)
	table := mediatest.PDF(mediatest.PDFOptions{Pages: 1})
	xref := bytes.LastIndex(table, []byte("\nxref\n")) + 1
	for name, b := range map[string][]byte{
		"zero widths, a billion entries": bytes.Replace(stream, []byte("/W [1 4 2]"), []byte("/W [0 0 0] /Index [0 999999999]"), 1),
		"a width of a billion":           bytes.Replace(stream, []byte("/W [1 4 2]"), []byte("/W [1 999999999 2]"), 1),
		"object 2^31 in a stream":        bytes.Replace(stream, []byte("/W [1 4 2]"), []byte("/W [1 4 2] /Index [2147483000 1]"), 1),
		"object 2^31 in a table":         bytes.Replace(table, []byte("xref\n0 "), []byte("xref\n2147483000 "), 1),
		"a /Prev loop":                   bytes.Replace(table, []byte("trailer\n<<"), []byte(fmt.Sprintf("trailer\n<< /Prev %d", xref)), 1),
	} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			d, err := Open(context.Background(), b)
			if err == nil {
				_, err = d.Text(context.Background(), 1, d.NumPages())
			}
			var m *MalformedError
			if !errors.As(err, &m) || time.Since(start) > 5*time.Second {
				t.Fatalf("%v (%T) after %v", err, err, time.Since(start))
			}
		})
	}
}
