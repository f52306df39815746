package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"steerable.dev/sidecar/internal/codesearch"
	"steerable.dev/sidecar/protocol"
)

type globArgs struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
	Limit   int    `json:"limit"`
}

var globSchema = fmt.Sprintf(`{"type":"object","additionalProperties":false,"required":["pattern"],"properties":{`+
	`"pattern":{"type":"string","description":"glob relative to path: * and ? never cross /, ** spans directories, {a,b} alternatives, [a-z] classes; \"**/*.go\" is every Go file, \"*.go\" only those directly in path"},`+
	`"path":{"type":"string","description":"directory the pattern starts in, relative to the workspace (default: the workspace)"},`+
	`"limit":{"type":"integer","minimum":1,"maximum":%d,"default":%d,"description":"most files returned"}}}`,
	codesearch.MaxLimit, codesearch.DefaultLimit)

func newGlob(e *codesearch.Engine) Tool {
	return New(protocol.ToolDescriptor{
		Name: "glob",
		Description: "List workspace files whose path matches a glob pattern (\"**/*_test.go\", \"src/**/*.{ts,tsx}\"), " +
			"newest first, paths relative to the workspace. Skips what grep skips: ignored files (.gitignore, .ignore, " +
			".git/info/exclude), .git, node_modules and build output, hidden files unless the pattern names them (\".github/**\"), " +
			"files over the size limit (counted in skipped.tooLarge), and credential stores such as ~/.ssh (skipped.denied).",
		Mode:       protocol.ModeRead,
		Exposure:   protocol.ExposureDirect,
		Parameters: json.RawMessage(globSchema),
	}, func(ctx context.Context, _ Call, a globArgs) protocol.ToolResult {
		res, err := e.Glob(ctx, codesearch.GlobQuery{Pattern: a.Pattern, Path: a.Path, Limit: a.Limit})
		if err != nil {
			return searchFailure(ctx, err)
		}
		return OK(globMessage(a, res), map[string]any{"files": nonNil(res.Files), "truncated": res.Truncated, "matched": res.Matched,
			"skipped": map[string]int{"tooLarge": res.TooLarge, "denied": res.Denied}})
	})
}

// globMessage says what matched and, like grep's, what was skipped.
func globMessage(a globArgs, r codesearch.GlobResult) string {
	msg := globMatches(a, r)
	if r.TooLarge > 0 {
		msg += fmt.Sprintf("; skipped %s over the size limit", plural(r.TooLarge, "file"))
	}
	return msg + deniedNote(r.Denied)
}

func globMatches(a globArgs, r codesearch.GlobResult) string {
	switch {
	case r.Missing != "":
		return fmt.Sprintf("no files match %q: %s does not exist", a.Pattern, r.Missing)
	case r.Matched == 0 && !strings.Contains(a.Pattern, "/") && !strings.HasPrefix(a.Pattern, "**"):
		return fmt.Sprintf("no files match %q directly in %s; \"**/%s\" searches every directory below it", a.Pattern, orWorkspace(a.Path), a.Pattern)
	case r.Matched == 0:
		return fmt.Sprintf("no files match %q", a.Pattern)
	case r.Truncated:
		return fmt.Sprintf("%s match %q; showing the %d newest: narrow the pattern or raise limit (at most %d)", plural(r.Matched, "file"), a.Pattern, len(r.Files), codesearch.MaxLimit)
	}
	return fmt.Sprintf("%s %s %q", plural(r.Matched, "file"), verb(r.Matched), a.Pattern)
}

func orWorkspace(path string) string {
	if path == "" || path == "." {
		return "the workspace"
	}
	return path
}

// searchFailure maps a grep or glob error to a follow-up: every error
// of the engine names its fix.
func searchFailure(ctx context.Context, err error) protocol.ToolResult {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return Followup("search cancelled")
	}
	return Followup("%v", err)
}

// nonNil is s, or an empty list for JSON's sake.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
