package mediatest

import (
	"bytes"
	"fmt"
	"time"

	"codeberg.org/go-pdf/fpdf"
)

// PDFOptions shape a generated PDF.
type PDFOptions struct {
	Pages int
	// Scanned lists 1-based pages that hold only an image, no text.
	Scanned map[int]bool
	// UserPassword, OwnerPassword encrypt the file (RC4, the standard
	// security handler) when either is set.
	UserPassword, OwnerPassword string
	// Uncompressed writes content streams as plain text.
	Uncompressed bool
}

// PageText is the text PDF writes on page n: two lines.
func PageText(n int) [2]string {
	return [2]string{fmt.Sprintf("Page %d heading", n), fmt.Sprintf("The quick brown fox jumps over page %d.", n)}
}

// PDF generates a document of o.Pages A4 pages, each with PageText's two
// lines unless it is one of o.Scanned.
func PDF(o PDFOptions) []byte {
	f := fpdf.New("P", "mm", "A4", "")
	f.SetCreationDate(time.Unix(0, 0).UTC())
	f.SetModificationDate(time.Unix(0, 0).UTC())
	f.SetCompression(!o.Uncompressed)
	if o.UserPassword != "" || o.OwnerPassword != "" {
		f.SetProtection(fpdf.CnProtectPrint, o.UserPassword, o.OwnerPassword)
	}
	scan := PNG(Gradient(120, 160))
	f.RegisterImageOptionsReader("scan", fpdf.ImageOptions{ImageType: "PNG"}, bytes.NewReader(scan))
	for n := 1; n <= o.Pages; n++ {
		f.AddPage()
		if o.Scanned[n] {
			f.ImageOptions("scan", 10, 10, 120, 160, false, fpdf.ImageOptions{ImageType: "PNG"}, 0, "")
			continue
		}
		f.SetFont("Helvetica", "B", 16)
		t := PageText(n)
		f.Cell(0, 10, t[0])
		f.Ln(12)
		f.SetFont("Helvetica", "", 12)
		f.Cell(0, 8, t[1])
	}
	var buf bytes.Buffer
	if err := f.Output(&buf); err != nil {
		panic(err)
	}
	return buf.Bytes()
}
