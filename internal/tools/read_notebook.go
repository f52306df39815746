package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"unicode/utf8"
	"unsafe"

	"steerable.dev/sidecar/internal/clip"
	"steerable.dev/sidecar/internal/files"
	"steerable.dev/sidecar/internal/imaging"
	"steerable.dev/sidecar/internal/notebook"
	"steerable.dev/sidecar/internal/readstate"
	"steerable.dev/sidecar/protocol"
)

// Bounds of a notebook's view, within read_file's usual 100,000
// characters: each output's text, each traceback, and the pictures.
const (
	nbOutputChars    = 8_000
	nbTracebackLines = 30
	nbImages         = 8
)

// readNotebook renders a notebook's cells in order, each with its id,
// type, source and outputs; image outputs become image blocks. A notebook
// that does not parse is refused with the way to read its JSON.
func (e fileEnv) readNotebook(ctx context.Context, abs string) protocol.ToolResult {
	s, _, err := e.ws.ReadFile(abs, e.maxBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return notFound(e, abs)
	case err != nil:
		return refusal(fileFailure(abs, err))
	}
	if err := files.CheckText(s); err != nil {
		return e.readText(ctx, abs, readFileArgs{Path: abs}, true)
	}
	nb, err := notebook.Parse(unsafe.Slice(unsafe.StringData(s), len(s)))
	if err != nil {
		return Followup("%s: %v; read its raw JSON with offset and limit (e.g. offset 1, limit 200)", abs, err)
	}
	r := nbRender{lim: e.media.imageLimits(), total: len(nb.Cells)}
	for i, c := range nb.Cells {
		if ctx.Err() != nil {
			return refusal(cancelled(abs))
		}
		r.cell(i+1, c)
	}
	blocks, text, partial := r.finish()
	version := readstate.OfString(s)
	e.state.Set(abs, readstate.Entry{Version: version, Partial: partial})
	msg := fmt.Sprintf("Read notebook %s (%d cells, %d bytes); edit a cell with notebook_edit and its id.", abs, len(nb.Cells), len(s))
	if r.hidden > 0 {
		msg += fmt.Sprintf(" %d cells at the end are listed without their content (the view is limited to %d characters): read the raw JSON with offset and limit.", r.hidden, files.ClipHead+files.ClipTail)
	}
	blocks[0].Text = msg + "\n\n" + blocks[0].Text
	res := OK(msg, map[string]any{"path": abs, "content": text, "version": version, "partial": partial,
		"cells": len(nb.Cells), "images": r.images, "bytes": len(s)})
	res.Content = blocks
	return res
}

// nbRender builds the view: text blocks with image blocks between them.
type nbRender struct {
	lim     imaging.Limits
	total   int
	blocks  []protocol.ContentBlock
	cur     strings.Builder
	all     strings.Builder // every text block, for data.content
	chars   int
	hidden  int
	images  int
	omitted int
}

func (r *nbRender) cell(n int, c notebook.Cell) {
	if r.chars > files.ClipHead+files.ClipTail {
		r.hidden++
		r.text(fmt.Sprintf("--- cell %d of %d · id %s · %s (not shown) ---\n", n, r.total, c.ID, c.Type))
		return
	}
	head := fmt.Sprintf("--- cell %d of %d · id %s · %s", n, r.total, c.ID, c.Type)
	if c.ExecutionCount != nil {
		head += fmt.Sprintf(" · [%d]", *c.ExecutionCount)
	}
	r.text(head + " ---\n" + c.Source)
	if c.Source != "" && !strings.HasSuffix(c.Source, "\n") {
		r.text("\n")
	}
	for i, o := range c.Outputs {
		r.output(i+1, o)
	}
}

func (r *nbRender) output(n int, o notebook.Output) {
	switch o.Type {
	case "stream":
		r.text(fmt.Sprintf("--- output %d: %s ---\n%s", n, o.Name, clipOutput(o.Text)))
	case "error":
		r.text(fmt.Sprintf("--- output %d: error ---\n%s: %s\n%s", n, o.EName, o.EValue, traceback(o.Traceback)))
	default:
		r.text(fmt.Sprintf("--- output %d: %s ---\n%s", n, o.Type, clipOutput(o.Text)))
		r.newline()
		for _, img := range o.Images {
			r.image(img)
		}
	}
	r.newline()
}

func (r *nbRender) image(img notebook.Image) {
	if r.images >= nbImages {
		r.omitted++
		r.text(fmt.Sprintf("[%s output not shown: at most %d pictures a read]\n", img.MimeType, nbImages))
		return
	}
	p, err := imaging.Fit(img.Data, r.lim)
	if err != nil {
		r.text(fmt.Sprintf("[%s output cannot be shown: %v]\n", img.MimeType, err))
		return
	}
	r.images++
	r.text(fmt.Sprintf("[%s output, %d×%d, shown below]\n", img.MimeType, p.OriginalWidth, p.OriginalHeight))
	r.flush()
	r.blocks = append(r.blocks, protocol.ContentBlock{Type: protocol.ContentImage, MimeType: p.Format.MimeType(), Data: p.Data})
}

func (r *nbRender) text(s string) {
	r.cur.WriteString(s)
	r.all.WriteString(s)
	r.chars += utf8.RuneCountInString(s)
}

func (r *nbRender) newline() {
	if s := r.cur.String(); s != "" && !strings.HasSuffix(s, "\n") {
		r.text("\n")
	}
}

func (r *nbRender) flush() {
	if r.cur.Len() > 0 {
		r.blocks = append(r.blocks, protocol.ContentBlock{Type: protocol.ContentText, Text: r.cur.String()})
		r.cur.Reset()
	}
}

// finish returns the blocks (the first always text), the whole text and
// whether anything was left out.
func (r *nbRender) finish() ([]protocol.ContentBlock, string, bool) {
	r.flush()
	if len(r.blocks) == 0 || r.blocks[0].Type != protocol.ContentText {
		r.blocks = append([]protocol.ContentBlock{{Type: protocol.ContentText, Text: "(no cells)\n"}}, r.blocks...)
	}
	return r.blocks, r.all.String(), r.hidden > 0 || r.omitted > 0
}

// outputClip keeps a quarter of an output's characters from its head and
// the rest from its tail, where errors and final results are.
var outputClip = clip.Limit{Head: nbOutputChars / 4, Tail: nbOutputChars - nbOutputChars/4, Unit: clip.Chars}

// clipOutput keeps an output's head and tail.
func clipOutput(s string) string {
	out, _ := outputClip.String(s)
	return out
}

// ansi matches the terminal colour codes IPython puts in tracebacks.
var ansi = regexp.MustCompile(`\x1b\[[0-9;]*[A-Za-z]`)

// traceback is an error's traceback without colour codes, its last lines
// kept (the frame that raised is at the end).
func traceback(frames []string) string {
	lines := strings.Split(ansi.ReplaceAllString(strings.Join(frames, "\n"), ""), "\n")
	if len(lines) > nbTracebackLines {
		lines = append([]string{fmt.Sprintf("...[%d traceback lines not shown]...", len(lines)-nbTracebackLines)}, lines[len(lines)-nbTracebackLines:]...)
	}
	return clipOutput(strings.Join(lines, "\n"))
}
