package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"steerable.dev/sidecar/internal/files"
	"steerable.dev/sidecar/internal/readstate"
	"steerable.dev/sidecar/protocol"
)

type readFileArgs struct {
	Path   string `json:"path"`
	Offset int    `json:"offset"`
	Limit  int    `json:"limit"`
	Pages  string `json:"pages"`
}

func newReadFile(env fileEnv) Tool {
	return New(protocol.ToolDescriptor{
		Name: "read_file",
		Description: "Read a file in the workspace. A UTF-8 text file comes back exactly as stored, with its version " +
			"(SHA-256 of the whole file), which write_file and edit_file check so a file changed since you read it is not overwritten. " +
			"Views over 100,000 characters keep the first 20,000 and the last 80,000 with a marker between them (partial:true); " +
			"offset (1-based line) and limit (line count) read a range. " +
			"Images (PNG, JPEG, GIF, WebP) come back as a picture you can see, scaled down when large; " +
			"PDFs as their text page by page (pages selects at most 20 a call); Jupyter notebooks (.ipynb) as their cells with outputs " +
			"(edit them with notebook_edit; offset/limit show the raw JSON). Other binary files are refused: use bash for them.",
		Mode: protocol.ModeRead,
		Parameters: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["path"],"properties":{` +
			`"path":{"type":"string","description":"file path, relative to the workspace or absolute"},` +
			`"offset":{"type":"integer","minimum":1,"description":"first line to return (1-based)"},` +
			`"limit":{"type":"integer","minimum":1,"description":"number of lines to return"},` +
			`"pages":{"type":"string","description":"PDF only: a page (\"3\") or a range (\"1-5\"), at most 20 pages; default the first 20"}}}`),
	}, env.readFile)
}

func (e fileEnv) readFile(ctx context.Context, _ Call, a readFileArgs) protocol.ToolResult {
	abs, refused := e.resolve(a.Path)
	if refused != nil {
		return refusal(refused)
	}
	unlock := e.state.Lock(abs)
	defer unlock()
	switch kind := kindByName(abs); {
	case kind == kindNotebook && a.Offset == 0 && a.Limit == 0 && a.Pages == "":
		return e.readNotebook(ctx, abs)
	case kind == kindMedia || a.Pages != "":
		return e.readMedia(ctx, abs, a)
	}
	return e.readText(ctx, abs, a, true)
}

// readText reads a text file; with mediaFallback, one that turns out to
// be an image or a PDF by its content (whatever its name) goes to
// readMedia.
func (e fileEnv) readText(ctx context.Context, abs string, a readFileArgs, mediaFallback bool) protocol.ToolResult {
	f, fi, err := e.ws.OpenRead(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return Followup("%s does not exist; check the path (list the directory with bash: ls %s)", abs, e.ws.Rel(filepath.Dir(abs)))
	}
	if err != nil {
		return refusal(fileFailure(abs, err))
	}
	defer f.Close()
	h := readstate.NewHasher()
	text, err := files.ScanText(files.WithContext(ctx, f), h, files.ScanOptions{Offset: a.Offset, Limit: a.Limit, SizeHint: fi.Size()})
	var nt *files.NotTextError
	switch {
	case errors.As(err, &nt) && mediaFallback && mediaType(nt.Type):
		return e.readMedia(ctx, abs, a)
	case errors.As(err, &nt):
		return refusal(e.notText(abs, nt, fi.Size()))
	case err != nil:
		return refusal(fileFailure(abs, err))
	case a.Offset > max(text.TotalLines, 1):
		return Followup("offset %d is past the end of %s, which has %d lines; pass an offset from 1 to %d", a.Offset, abs, text.TotalLines, max(text.TotalLines, 1))
	}
	version := h.Version()
	e.state.Set(abs, readstate.Entry{Version: version, Partial: text.Partial()})
	return OK(readMessage(abs, text), map[string]any{
		"path": abs, "content": text.Content, "version": version, "partial": text.Partial(),
		"totalLines": text.TotalLines, "bytes": text.Bytes,
	})
}

// readMessage says what the view holds and how to see the rest.
func readMessage(abs string, t files.Text) string {
	msg := fmt.Sprintf("Read %s (%d lines, %d bytes)", abs, t.TotalLines, t.Bytes)
	if t.FirstLine > 1 || t.FirstLine+t.Shown-1 < t.TotalLines {
		msg += fmt.Sprintf(", lines %d-%d", t.FirstLine, t.FirstLine+t.Shown-1)
	}
	if t.Truncated > 0 {
		msg += fmt.Sprintf("; %d characters in the middle are not shown: read them with offset and limit", t.Truncated)
	}
	return msg + "."
}
