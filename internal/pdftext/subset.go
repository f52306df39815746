package pdftext

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// ErrNoSubset: the file cannot be narrowed to a page range (encrypted, or
// its page tree or trailer is not what Subset can refer to); the caller
// leaves the document block out and says why.
var ErrNoSubset = errors.New("the PDF cannot be narrowed to the selected pages")

// Subset is the file narrowed to pages first..last: the file itself when
// that is every page, else the original bytes followed by an incremental
// update whose catalog lists only those pages (package doc).
func (d *Doc) Subset(first, last int) ([]byte, error) {
	if first == 1 && last >= len(d.pages) {
		return d.data, nil
	}
	if d.encrypted {
		return nil, fmt.Errorf("%w: it is encrypted", ErrNoSubset)
	}
	size := d.r.Trailer().Key("Size").Int64()
	prev, ok := lastStartXref(d.data)
	if size <= 0 || size > 1<<31 || !ok {
		return nil, fmt.Errorf("%w: its trailer has no usable /Size or startxref", ErrNoSubset)
	}
	sel := d.pages[first-1 : last]
	u := update{buf: bytes.NewBuffer(append(make([]byte, 0, len(d.data)+512+len(sel)*128), d.data...)), size: size}
	u.buf.WriteString("\n")
	pagesID, next := size, size+1
	var kids []string
	for _, p := range sel {
		kid, err := u.kid(p, pagesID, &next)
		if err != nil {
			return nil, err
		}
		kids = append(kids, kid)
	}
	catalogID := next
	u.object(pagesID, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids)))
	u.object(catalogID, fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pagesID))
	root := fmt.Sprintf("/Root %d 0 R /Prev %d", catalogID, prev)
	if classicXref(d.data, prev) {
		u.table(root)
	} else {
		u.stream(root)
	}
	return u.buf.Bytes(), nil
}

// update appends an incremental update's objects and cross-reference.
type update struct {
	buf     *bytes.Buffer
	size    int64
	offsets map[int64]int64 // object number → offset, for size, size+1, ...
}

func (u *update) object(id int64, body string) {
	if u.offsets == nil {
		u.offsets = map[int64]int64{}
	}
	u.offsets[id] = int64(u.buf.Len())
	fmt.Fprintf(u.buf, "%d 0 obj\n%s\nendobj\n", id, body)
}

// kid is the new tree's entry for page p: the page itself, or, when it
// inherits attributes from its old ancestors, a node of its own carrying
// them (readers that walk down the tree, such as poppler, take inherited
// attributes from the nodes they walked; readers that follow /Parent still
// find the old ones, which say the same).
func (u *update) kid(p pageRef, parent int64, next *int64) (string, error) {
	if !p.hasRef {
		return "", fmt.Errorf("%w: a page has no object number", ErrNoSubset)
	}
	ref := fmt.Sprintf("%d %d R", p.id, p.gen)
	if len(p.inherited) == 0 {
		return ref, nil
	}
	var attrs []string
	for _, k := range inheritable {
		a, ok := p.inherited[k]
		if ok && a == "" {
			return "", fmt.Errorf("%w: a page inherits its /%s in a form Subset does not copy", ErrNoSubset, k)
		}
		if ok {
			attrs = append(attrs, "/"+k+" "+a)
		}
	}
	id := *next
	*next++
	u.object(id, fmt.Sprintf("<< /Type /Pages /Parent %d 0 R /Kids [%s] /Count 1 %s >>", parent, ref, strings.Join(attrs, " ")))
	return fmt.Sprintf("%d 0 R", id), nil
}

// ids are the new objects' numbers in order.
func (u *update) ids() []int64 {
	ids := slices.Collect(maps.Keys(u.offsets))
	slices.Sort(ids)
	return ids
}

// table ends the update with a cross-reference table and trailer (for a
// file whose own cross-reference is a table).
func (u *update) table(trailer string) {
	at := u.buf.Len()
	fmt.Fprintf(u.buf, "xref\n%d %d\n", u.size, len(u.offsets))
	for _, id := range u.ids() {
		fmt.Fprintf(u.buf, "%010d 00000 n\r\n", u.offsets[id])
	}
	fmt.Fprintf(u.buf, "trailer\n<< /Size %d %s >>\nstartxref\n%d\n%%%%EOF\n", u.size+int64(len(u.offsets)), trailer, at)
}

// stream ends the update with a cross-reference stream (ISO 32000-1
// §7.5.8), for a file whose own cross-reference is one: entries of type 1,
// a 4-byte offset and a 2-byte generation, the stream's own entry last.
func (u *update) stream(trailer string) {
	id := u.size + int64(len(u.offsets))
	at := int64(u.buf.Len())
	u.offsets[id] = at
	var data []byte
	for _, id := range u.ids() {
		data = append(data, 1)
		data = binary.BigEndian.AppendUint32(data, uint32(u.offsets[id]))
		data = append(data, 0, 0)
	}
	fmt.Fprintf(u.buf, "%d 0 obj\n<< /Type /XRef /Size %d /W [1 4 2] /Index [%d %d] %s /Length %d >>\nstream\n",
		id, id+1, u.size, len(u.offsets), trailer, len(data))
	u.buf.Write(data)
	fmt.Fprintf(u.buf, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", at)
}

// lastStartXref is the offset the file's last startxref names.
func lastStartXref(b []byte) (int64, bool) {
	i := bytes.LastIndex(b, []byte("startxref"))
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+len("startxref") : min(len(b), i+len("startxref")+32)]))
	if len(f) == 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(f[0], 10, 64)
	return n, err == nil && n >= 0 && n < int64(len(b))
}

// classicXref reports whether the cross-reference at off is a table
// ("xref"), not a stream object.
func classicXref(b []byte, off int64) bool {
	return bytes.HasPrefix(bytes.TrimLeft(b[off:], " \t\r\n"), []byte("xref"))
}
