package pdftext

import (
	"maps"
	"regexp"
	"strconv"
	"strings"

	"github.com/ledongthuc/pdf"
)

// maxPageTree bounds the nodes of the page tree a file may declare.
const maxPageTree = 200_000

// pageRef is one page: its dictionary and its object reference, which
// Subset lists in the new page tree (ok false when the file gave a page
// inline, which Subset then cannot refer to).
type pageRef struct {
	page   pdf.Page
	id     int64
	gen    int64
	hasRef bool
	// inherited holds the inheritable attributes (ISO 32000-1 §7.7.3.4)
	// the page takes from its ancestors, in PDF syntax; a key mapped to ""
	// could not be written (Subset then declines).
	inherited map[string]string
}

// inheritable are the page attributes a page may take from its ancestors.
var inheritable = []string{"Resources", "MediaBox", "CropBox", "Rotate"}

// pageTree lists the pages in order, walking /Kids from the catalog's
// /Pages: each node once, at most maxPageTree of them. The library's
// NumPage trusts /Count, which a file can get wrong.
func pageTree(r *pdf.Reader) ([]pageRef, error) {
	root := r.Trailer().Key("Root").Key("Pages")
	if root.Kind() != pdf.Dict {
		return nil, &MalformedError{Reason: "the catalog has no page tree"}
	}
	w := treeWalk{seen: map[[2]int64]bool{}}
	w.node(root, 0, attrsOf(root, nil))
	if w.err != nil {
		return nil, w.err
	}
	return w.pages, nil
}

type treeWalk struct {
	pages []pageRef
	seen  map[[2]int64]bool
	nodes int
	err   error
}

// maxDepth bounds the page tree's depth.
const maxDepth = 64

func (w *treeWalk) node(n pdf.Value, depth int, attrs map[string]string) {
	kids := n.Key("Kids")
	refs := arrayRefs(kids)
	for i := range kids.Len() {
		if w.nodes++; w.nodes > maxPageTree || depth > maxDepth {
			w.err = &MalformedError{Reason: "the page tree is too large or too deep"}
			return
		}
		ref := pageRef{}
		if i < len(refs) {
			ref.id, ref.gen, ref.hasRef = refs[i][0], refs[i][1], refs[i][0] > 0
			if ref.hasRef {
				if w.seen[refs[i]] {
					continue // a cycle, or a page listed twice
				}
				w.seen[refs[i]] = true
			}
		}
		kid := kids.Index(i)
		switch kid.Key("Type").Name() {
		case "Pages":
			w.node(kid, depth+1, attrsOf(kid, attrs))
		case "Page":
			w.page(kid, ref, attrs)
		default:
			if kid.Key("Kids").Kind() == pdf.Array { // a node without /Type
				w.node(kid, depth+1, attrsOf(kid, attrs))
			} else if kid.Kind() == pdf.Dict {
				w.page(kid, ref, attrs)
			}
		}
		if w.err != nil {
			return
		}
	}
}

// page records a leaf with the attributes it inherits and lacks itself.
func (w *treeWalk) page(v pdf.Value, ref pageRef, attrs map[string]string) {
	ref.page = pdf.Page{V: v}
	for k, a := range attrs {
		if v.Key(k).Kind() == pdf.Null {
			if ref.inherited == nil {
				ref.inherited = map[string]string{}
			}
			ref.inherited[k] = a
		}
	}
	w.pages = append(w.pages, ref)
}

// attrsOf is the inheritable attributes below node n: its own over its
// parent's.
func attrsOf(n pdf.Value, parent map[string]string) map[string]string {
	out := parent
	for _, k := range inheritable {
		v := n.Key(k)
		if v.Kind() == pdf.Null {
			continue
		}
		if out == nil || len(out) == len(parent) && sameMap(out, parent) {
			out = maps.Clone(parent)
			if out == nil {
				out = map[string]string{}
			}
		}
		out[k] = attrSyntax(n, k, v)
	}
	return out
}

func sameMap(a, b map[string]string) bool { return maps.Equal(a, b) }

// attrSyntax writes an inherited attribute: a box as its numbers, Rotate
// as an integer, Resources as the reference the node holds ("" when it is
// inline, which Subset does not copy).
func attrSyntax(n pdf.Value, key string, v pdf.Value) string {
	switch v.Kind() {
	case pdf.Integer:
		return strconv.FormatInt(v.Int64(), 10)
	case pdf.Array:
		var nums []string
		for i := range v.Len() {
			e := v.Index(i)
			if e.Kind() != pdf.Integer && e.Kind() != pdf.Real {
				return ""
			}
			nums = append(nums, strconv.FormatFloat(e.Float64(), 'f', -1, 64))
		}
		return "[" + strings.Join(nums, " ") + "]"
	}
	if m := refOf.FindStringSubmatch(n.String()); key == "Resources" && m != nil {
		return m[1] + " " + m[2] + " R"
	}
	return ""
}

// refOf finds the reference of a node's /Resources in its printed form.
var refOf = regexp.MustCompile(`/Resources (\d+) (\d+) R\b`)

// arrayRefs reads the object references of an array's elements. The
// library resolves references as it reads them and keeps them private; its
// printed form of the unresolved array writes each as "id gen R", so that
// is parsed. An element that is not a reference yields {0, 0}; a form that
// does not parse yields nil, and Subset is then not offered.
func arrayRefs(a pdf.Value) [][2]int64 {
	s := a.String()
	if !strings.HasPrefix(s, "[") || !strings.HasSuffix(s, "]") {
		return nil
	}
	f := strings.Fields(s[1 : len(s)-1])
	out := make([][2]int64, 0, a.Len())
	for len(f) >= 3 && f[2] == "R" {
		id, err1 := strconv.ParseInt(f[0], 10, 64)
		gen, err2 := strconv.ParseInt(f[1], 10, 64)
		if err1 != nil || err2 != nil {
			return nil
		}
		out = append(out, [2]int64{id, gen})
		f = f[3:]
	}
	if len(f) != 0 || len(out) != a.Len() {
		return nil
	}
	return out
}
