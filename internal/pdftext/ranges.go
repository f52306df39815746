package pdftext

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxPages is the most pages one read returns.
const MaxPages = 20

// ParseRange reads a page selection, "3" or "1-5", against a document of
// total pages. An empty selection is the first MaxPages pages. The error
// says what to pass instead.
func ParseRange(sel string, total int) (first, last int, err error) {
	if total == 0 {
		return 1, 0, nil
	}
	if sel == "" {
		return 1, min(total, MaxPages), nil
	}
	a, b, isRange := strings.Cut(sel, "-")
	first, err1 := strconv.Atoi(strings.TrimSpace(a))
	last, err2 := first, error(nil)
	if isRange {
		last, err2 = strconv.Atoi(strings.TrimSpace(b))
	}
	switch {
	case err1 != nil || err2 != nil || first < 1 || last < first:
		return 0, 0, fmt.Errorf("pages %q is not a page or a range: pass \"3\" or \"1-5\" (pages count from 1)", sel)
	case first > total:
		return 0, 0, fmt.Errorf("pages %q is past the end: the PDF has %d pages", sel, total)
	case last-first+1 > MaxPages:
		return 0, 0, fmt.Errorf("pages %q selects %d pages; read at most %d a call (e.g. \"%d-%d\")", sel, last-first+1, MaxPages, first, first+MaxPages-1)
	}
	return first, min(last, total), nil
}
