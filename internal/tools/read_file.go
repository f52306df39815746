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
}

func newReadFile(d Deps) Tool {
	env := newFileEnv(d)
	return New(protocol.ToolDescriptor{
		Name: "read_file",
		Description: "Read a UTF-8 text file in the workspace. Returns its content exactly as stored and its version " +
			"(SHA-256 of the whole file), which write_file and edit_file check so a file changed since you read it is not overwritten. " +
			"Views over 100,000 characters keep the first 20,000 and the last 80,000 with a marker between them (partial:true); " +
			"offset (1-based line) and limit (line count) read a range. Binary files are refused: use bash for them.",
		Mode: protocol.ModeRead,
		Parameters: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["path"],"properties":{` +
			`"path":{"type":"string","description":"file path, relative to the workspace or absolute"},` +
			`"offset":{"type":"integer","minimum":1,"description":"first line to return (1-based)"},` +
			`"limit":{"type":"integer","minimum":1,"description":"number of lines to return"}}}`),
	}, env.readFile)
}

func (e fileEnv) readFile(ctx context.Context, _ Call, a readFileArgs) protocol.ToolResult {
	abs, refused := e.resolve(a.Path)
	if refused != nil {
		return *refused
	}
	unlock := e.state.Lock(abs)
	defer unlock()
	f, fi, err := e.ws.OpenRead(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return Followup("%s does not exist; check the path (list the directory with bash: ls %s)", abs, e.ws.Rel(filepath.Dir(abs)))
	}
	if err != nil {
		return *fileFailure(abs, err)
	}
	defer f.Close()
	h := readstate.NewHasher()
	text, err := files.ScanText(files.WithContext(ctx, f), h, files.ScanOptions{Offset: a.Offset, Limit: a.Limit, SizeHint: fi.Size()})
	var nt *files.NotTextError
	switch {
	case errors.As(err, &nt):
		return e.notText(abs, nt, fi.Size())
	case err != nil:
		return *fileFailure(abs, err)
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
