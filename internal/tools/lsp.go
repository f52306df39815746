package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
	res.Message += diagnosticsSummary(rep)
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

// diagnosticsSummary is the sentence appended to the result's message.
func diagnosticsSummary(r *lsp.Report) string {
	errs := 0
	for _, it := range r.Items {
		if it.Severity == "error" {
			errs++
		}
	}
	var b strings.Builder
	switch {
	case len(r.Items) == 0 && r.Error != "":
		return " No diagnostics: " + r.Error + "."
	case len(r.Items) == 0 && r.Pending:
		return " The language server had not reported diagnostics yet (pending)."
	case len(r.Items) == 0:
		return " No errors or warnings from the language server."
	}
	fmt.Fprintf(&b, " Language server: %d error(s), %d warning(s), %d new", errs, len(r.Items)-errs, r.New)
	if r.Pending {
		b.WriteString(" (still checking)")
	}
	first := r.Items[0]
	fmt.Fprintf(&b, "; first: %s:%d:%d %s.", first.File, first.Line, first.Column, strings.TrimSuffix(first.Message, "."))
	return b.String()
}

type lspArgs struct {
	Operation string `json:"operation"`
	Path      string `json:"path"`
	Line      int    `json:"line"`
	Symbol    string `json:"symbol"`
	Query     string `json:"query"`
}

const lspSchema = `{"type":"object","additionalProperties":false,"required":["operation"],"properties":{` +
	`"operation":{"type":"string","enum":["definition","references","hover","documentSymbols","workspaceSymbols","diagnostics","implementation","callHierarchy"]},` +
	`"path":{"type":"string","description":"the file, relative to the workspace; every operation but workspaceSymbols (optional there) and diagnostics (optional: without it, all known)"},` +
	`"line":{"type":"integer","minimum":1,"description":"1-based line the symbol is on (definition, references, hover, implementation, callHierarchy)"},` +
	`"symbol":{"type":"string","minLength":1,"description":"the identifier on that line to ask about; its first whole-word occurrence is used"},` +
	`"query":{"type":"string","description":"workspaceSymbols: a symbol name or part of one"}}}`

// NewLSP is the lsp tool over m's servers; ws resolves the model's paths
// as the file tools do.
func NewLSP(m *lsp.Manager, ws *files.Workspace) Tool {
	return New(protocol.ToolDescriptor{
		Name: "lsp", Mode: protocol.ModeRead, Parameters: json.RawMessage(lspSchema),
		Description: "Ask the language server (" + strings.Join(m.Names(), ", ") + ") about the code: definition, references, " +
			"implementation, hover (type and docs), callHierarchy (callers and callees) of the symbol named on a line; documentSymbols " +
			"of a file; workspaceSymbols matching a query; diagnostics (errors and warnings) of a file. Results are workspace-relative " +
			"paths with 1-based line and column and the line's text, sorted, at most 100.",
	}, func(ctx context.Context, call Call, a lspArgs) protocol.ToolResult {
		req := lsp.Request{Operation: a.Operation, Line: a.Line, Symbol: a.Symbol, Query: a.Query}
		if a.Path != "" {
			abs, err := ws.Resolve(a.Path)
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
