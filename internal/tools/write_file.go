package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"steerable.dev/sidecar/internal/readstate"
	"steerable.dev/sidecar/protocol"
)

type writeFileArgs struct {
	Path            string `json:"path"`
	Content         string `json:"content"`
	ExpectedVersion string `json:"expectedVersion"`
}

func newWriteFile(env fileEnv) Tool {
	return New(protocol.ToolDescriptor{
		Name: "write_file",
		Description: "Create a file, or replace an existing one whole, with content written byte for byte (parent directories are created, the mode is kept). " +
			"An existing file must have been read in this session and not changed since; after a partial read use edit_file instead. " +
			"Pass expectedVersion (from read_file) to require that exact version. Returns the new version.",
		Mode: protocol.ModeSafeWrite,
		Parameters: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["path","content"],"properties":{` +
			`"path":{"type":"string","description":"file path, relative to the workspace or absolute"},` +
			`"content":{"type":"string","description":"the whole new content of the file"},` +
			`"expectedVersion":` + versionSchema + `}}`),
	}, env.writeFile)
}

func (e fileEnv) writeFile(ctx context.Context, call Call, a writeFileArgs) protocol.ToolResult {
	abs, refused := e.resolve(a.Path)
	if refused != nil {
		return refusal(refused)
	}
	if int64(len(a.Content)) > e.maxBytes {
		return Followup("content is %d bytes, over the %d-byte limit (STEERABLE_FILE_MAX_BYTES); write a smaller file, or build it in parts with edit_file", len(a.Content), e.maxBytes)
	}
	unlock := e.state.Lock(abs)
	defer unlock()
	cur, refused := e.hash(ctx, abs)
	if refused != nil {
		return refusal(refused)
	}
	if refused := e.gate(abs, cur, a.ExpectedVersion, true); refused != nil {
		return refusal(refused)
	}
	version := readstate.OfString(a.Content)
	created := !cur.exists
	if cur.version != version { // identical content: nothing to write
		var err error
		if created, err = e.ws.WriteFileAs(origin(call, "write_file"), abs, a.Content, nil); err != nil {
			return refusal(fileFailure(abs, err))
		}
	}
	e.state.Set(abs, readstate.Entry{Version: version}) // a whole write the gates allowed: the model has seen it all
	verb := "Wrote"
	if created {
		verb = "Created"
	}
	return OK(fmt.Sprintf("%s %s (%d bytes).", verb, abs, len(a.Content)), map[string]any{
		"path": abs, "version": version, "created": created, "bytes": len(a.Content),
	})
}
