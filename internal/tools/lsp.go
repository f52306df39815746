package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"steerable.dev/sidecar/internal/files"
	"steerable.dev/sidecar/internal/lsp"
	"steerable.dev/sidecar/protocol"
)

// Code intelligence glue: the lsp tool, and the one hook that adds
// data.diagnostics to the results of the tools that change files. The
// language servers themselves live in internal/lsp.

// fileChangers are the tools whose successful results name the files they
// changed (data.path, or apply_patch's data.files[].path and .from).
var fileChangers = map[string]bool{"write_file": true, "edit_file": true, "apply_patch": true, "notebook_edit": true}

// WithDiagnostics wraps the file-changing tools of ts so that a successful
// result carries data.diagnostics from m's servers. With no server (m nil
// or empty) ts is returned as it is.
func WithDiagnostics(ts []Tool, m *lsp.Manager) []Tool {
	if !m.Enabled() {
		return ts
	}
	out := make([]Tool, len(ts))
	for i, t := range ts {
		out[i] = t
		if fileChangers[t.Descriptor().Name] {
			out[i] = &diagnosed{Tool: t, m: m}
		}
	}
	return out
}

type diagnosed struct {
	Tool
	m *lsp.Manager
}

// Prepare keeps the wrapped tool's argument rewriting, if it has one.
func (d *diagnosed) Prepare(args json.RawMessage) (json.RawMessage, *protocol.ToolResult) {
	if p, ok := d.Tool.(Preparer); ok {
		return p.Prepare(args)
	}
	return args, nil
}

func (d *diagnosed) Run(ctx context.Context, call Call) protocol.ToolResult {
	res := d.Tool.Run(ctx, call)
	if !res.Success || ctx.Err() != nil {
		return res
	}
	rep := d.m.AfterWrite(ctx, changedPaths(res.Data))
	if rep == nil {
		return res
	}
	res.Data["diagnostics"] = rep
	res.Message += rep.Summary()
	return res
}

// changedPaths reads the files a result says it changed.
func changedPaths(data map[string]any) []string {
	var out []string
	if p, ok := data["path"].(string); ok {
		out = append(out, p)
	}
	if fs, ok := data["files"].([]map[string]any); ok {
		for _, f := range fs {
			for _, k := range []string{"path", "from"} {
				if p, ok := f[k].(string); ok {
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// NewLSP is the lsp tool over m's servers; ws resolves the model's paths
// as the file tools do.
func NewLSP(m *lsp.Manager, ws *files.Workspace) Tool {
	return New(protocol.ToolDescriptor{
		Name: "lsp", Mode: protocol.ModeRead, Parameters: json.RawMessage(lsp.Schema),
		Description: "Ask the language server (" + strings.Join(m.Names(), ", ") + ") about the code: definition, references, " +
			"implementation, hover (type and docs), callHierarchy (callers and callees) of the symbol named on a line; documentSymbols " +
			"of a file; workspaceSymbols matching a query; diagnostics (errors and warnings) of a file. Results are workspace-relative " +
			"paths with 1-based line and column and the line's text, sorted, at most 100.",
	}, func(ctx context.Context, call Call, req lsp.Request) protocol.ToolResult {
		if req.Path != "" {
			abs, err := ws.Resolve(req.Path)
			if err != nil {
				return Followup("%v", err)
			}
			req.Path = abs
		}
		res, err := m.Run(ctx, req)
		var ue *lsp.UserError
		switch {
		case errors.As(err, &ue):
			return Followup("%v", err)
		case err != nil:
			return protocol.ToolResult{Success: false, Error: err.Error()}
		}
		return OK(res.Message, res.Data)
	})
}
