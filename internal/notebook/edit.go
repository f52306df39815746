package notebook

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Edit modes.
const (
	Replace = "replace"
	Insert  = "insert"
	Delete  = "delete"
)

// Edit is one notebook_edit.
type Edit struct {
	CellID string // the cell to change or delete; for insert, the cell to insert after ("" = at the top)
	Mode   string
	Source *string // replace and insert
	Type   string  // code, markdown or raw; "" keeps the type (insert: code)
}

// EditError is a refused edit, with the ids the notebook has.
type EditError struct {
	Msg string
	IDs []string
}

func (e *EditError) Error() string { return e.Msg }

// Apply returns the notebook's bytes with e applied and the id of the cell
// it changed or made. Every byte outside that cell stays as it was.
func (nb *Notebook) Apply(e Edit) ([]byte, string, error) {
	if e.Type != "" && e.Type != "code" && e.Type != "markdown" && e.Type != "raw" {
		return nil, "", &EditError{Msg: fmt.Sprintf("cellType %q: use code, markdown or raw", e.Type)}
	}
	i := -1
	if e.CellID != "" || e.Mode != Insert {
		if i = nb.index(e.CellID); i < 0 {
			return nil, "", nb.unknown(e.CellID)
		}
	}
	if e.Source == nil && e.Mode != Delete {
		return nil, "", &EditError{Msg: e.Mode + " needs newSource: the cell's whole new source"}
	}
	switch e.Mode {
	case Replace:
		return nb.replace(i, e)
	case Insert:
		return nb.insert(i, e)
	case Delete:
		return nb.delete(i), nb.Cells[i].ID, nil
	}
	return nil, "", &EditError{Msg: fmt.Sprintf("editMode %q: use replace, insert or delete", e.Mode)}
}

func (nb *Notebook) index(id string) int {
	return slices.IndexFunc(nb.Cells, func(c Cell) bool { return c.ID == id })
}

func (nb *Notebook) unknown(id string) error {
	ids := make([]string, len(nb.Cells))
	for i, c := range nb.Cells {
		ids[i] = c.ID
	}
	msg := fmt.Sprintf("no cell has id %q; the notebook's cells are %s (read it again for their contents)", id, strings.Join(ids, ", "))
	if len(ids) == 0 {
		msg = fmt.Sprintf("no cell has id %q: the notebook has no cells (insert with cellId \"\")", id)
	}
	return &EditError{Msg: msg, IDs: ids}
}

// splice is src with [from, to) replaced by with.
func (nb *Notebook) splice(from, to int, with string) []byte {
	out := make([]byte, 0, len(nb.src)-(to-from)+len(with))
	out = append(out, nb.src[:from]...)
	out = append(out, with...)
	return append(out, nb.src[to:]...)
}

func (nb *Notebook) replace(i int, e Edit) ([]byte, string, error) {
	c := nb.Cells[i]
	raw := nb.src[c.start:c.end]
	st := styleOf(raw)
	members, err := objectMembers(raw)
	if err != nil {
		return nil, "", err
	}
	typ := c.Type
	if e.Type != "" {
		typ = e.Type
	}
	members = setMember(members, "cell_type", quote(typ))
	members = setMember(members, "source", st.source(*e.Source, c.sourceIsString))
	if typ == "code" {
		members = setMember(members, "execution_count", "null")
		members = setMember(members, "outputs", "[]")
	} else {
		members = dropMember(dropMember(members, "execution_count"), "outputs")
	}
	return nb.splice(c.start, c.end, st.object(members)), c.ID, nil
}

func (nb *Notebook) insert(after int, e Edit) ([]byte, string, error) {
	typ := e.Type
	if typ == "" {
		typ = "code"
	}
	st, cellIndent := nb.cellStyle(after)
	members := []member{{"cell_type", quote(typ)}}
	if typ == "code" {
		members = append(members, member{"execution_count", "null"})
	}
	id := ""
	if nb.Major > 4 || nb.Minor >= 5 {
		id = nb.newID()
		members = append(members, member{"id", quote(id)})
	}
	members = append(members, member{"metadata", "{}"})
	if typ == "code" {
		members = append(members, member{"outputs", "[]"})
	}
	members = append(members, member{"source", st.source(*e.Source, false)})
	cell := st.object(members)
	var out []byte
	switch {
	case after >= 0:
		out = nb.splice(nb.Cells[after].end, nb.Cells[after].end, ","+cellIndent+cell)
	case len(nb.Cells) > 0:
		out = nb.splice(nb.cellsOpen+1, nb.cellsOpen+1, cellIndent+cell+",")
	default:
		closeIndent := strings.TrimSuffix(cellIndent, st.unit)
		out = nb.splice(nb.cellsOpen+1, nb.cellsClose, cellIndent+cell+closeIndent)
	}
	if id == "" {
		id = fmt.Sprintf("cell-%d", after+2)
	}
	return out, id, nil
}

func (nb *Notebook) delete(i int) []byte {
	c := nb.Cells[i]
	switch {
	case i > 0:
		return nb.splice(nb.Cells[i-1].end, c.end, "")
	case len(nb.Cells) > 1:
		return nb.splice(c.start, nb.Cells[1].start, "")
	}
	return nb.splice(nb.cellsOpen+1, nb.cellsClose, "")
}

// newID is a fresh cell id (nbformat 4.5: 1-64 of [a-zA-Z0-9-_]).
func (nb *Notebook) newID() string {
	for {
		var b [4]byte
		rand.Read(b[:])
		if id := hex.EncodeToString(b[:]); nb.index(id) < 0 {
			return id
		}
	}
}

// cellStyle is the formatting a new cell takes: its neighbour's, else the
// document's own indentation one and two levels down.
func (nb *Notebook) cellStyle(near int) (style, string) {
	if len(nb.Cells) > 0 {
		c := nb.Cells[max(near, 0)]
		start := c.start
		ws := start
		for ws > 0 && isSpace(nb.src[ws-1]) {
			ws--
		}
		return styleOf(nb.src[c.start:c.end]), string(nb.src[ws:start])
	}
	top := bytes.IndexByte(nb.src, '"')
	first := string(nb.src[bytes.IndexByte(nb.src, '{')+1 : max(top, 1)])
	if !strings.Contains(first, "\n") {
		return style{sep: ":"}, ""
	}
	unit := strings.TrimLeft(first, "\r\n")
	nl := first[:len(first)-len(unit)]
	return style{keyIndent: nl + unit + unit + unit, closeIndent: nl + unit + unit, unit: unit, sep: ": "}, nl + unit + unit
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// style is how a cell object is laid out.
type style struct {
	keyIndent, closeIndent, unit, sep string
}

// styleOf reads a cell object's layout: the white space before its first
// key and before its closing brace, and what separates a key from its
// value.
func styleOf(raw []byte) style {
	q := bytes.IndexByte(raw, '"')
	if q < 0 {
		return style{sep: ": "}
	}
	st := style{keyIndent: string(raw[1:q])}
	end := len(raw) - 1
	ws := end
	for ws > 0 && isSpace(raw[ws-1]) {
		ws--
	}
	st.closeIndent = string(raw[ws:end])
	st.unit = strings.TrimPrefix(st.keyIndent, st.closeIndent)
	st.sep = ": "
	if k := bytes.IndexByte(raw[q+1:], '"'); k >= 0 {
		rest := raw[q+1+k+1:]
		v := 0
		for v < len(rest) && (rest[v] == ':' || isSpace(rest[v])) {
			v++
		}
		st.sep = string(rest[:v])
	}
	return st
}

// member is one key of a cell object and its value in JSON.
type member struct{ key, value string }

// objectMembers lists a cell object's members in order, their values as
// written.
func objectMembers(raw []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	var out []member
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, member{t.(string), string(v)})
	}
	return out, nil
}

// setMember sets key's value, where it is, or in sorted position among
// the others (Jupyter sorts keys).
func setMember(ms []member, key, value string) []member {
	for i := range ms {
		if ms[i].key == key {
			ms[i].value = value
			return ms
		}
	}
	i := slices.IndexFunc(ms, func(m member) bool { return m.key > key })
	if i < 0 {
		i = len(ms)
	}
	return slices.Insert(ms, i, member{key, value})
}

func dropMember(ms []member, key string) []member {
	return slices.DeleteFunc(ms, func(m member) bool { return m.key == key })
}

// object writes a cell object in this style.
func (st style) object(ms []member) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(st.keyIndent)
		b.WriteString(quote(m.key))
		b.WriteString(st.sep)
		b.WriteString(m.value)
	}
	b.WriteString(st.closeIndent)
	b.WriteByte('}')
	return b.String()
}

// source writes a cell's source: a string when the cell had one, else
// nbformat's list of lines, each with its newline but the last.
func (st style) source(s string, asString bool) string {
	if asString {
		return quote(s)
	}
	if s == "" {
		return "[]"
	}
	var b strings.Builder
	b.WriteByte('[')
	for i, line := range strings.SplitAfter(s, "\n") {
		if line == "" {
			continue
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(st.keyIndent + st.unit)
		b.WriteString(quote(line))
	}
	b.WriteString(st.keyIndent)
	b.WriteByte(']')
	return b.String()
}

// quote writes s as Python's json.dumps(ensure_ascii=False) does: only
// the quote, the backslash and control characters are escaped.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
