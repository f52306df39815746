package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"steerable.dev/sidecar/internal/codesearch"
	"steerable.dev/sidecar/protocol"
)

type grepArgs struct {
	Query      string `json:"query"`
	IsRegex    bool   `json:"isRegex"`
	IgnoreCase bool   `json:"ignoreCase"`
	Path       string `json:"path"`
	Glob       string `json:"glob"`
	Context    int    `json:"context"`
	Output     string `json:"output"`
	Limit      int    `json:"limit"`
}

var grepSchema = fmt.Sprintf(`{"type":"object","additionalProperties":false,"required":["query"],"properties":{`+
	`"query":{"type":"string","description":"text to find; a regular expression (RE2 syntax) with isRegex"},`+
	`"isRegex":{"type":"boolean","default":false,"description":"treat query as a Go/RE2 regular expression: no lookaround, no backreferences"},`+
	`"ignoreCase":{"type":"boolean","default":false,"description":"match regardless of case"},`+
	`"path":{"type":"string","description":"file or directory to search, relative to the workspace (default: the whole workspace)"},`+
	`"glob":{"type":"string","description":"only files matching this glob: without a slash it matches file names at any depth (\"*.go\", \"*.{ts,tsx}\"), with one the path from the searched directory (\"src/**/*.go\"); a leading ! excludes"},`+
	`"context":{"type":"integer","minimum":0,"maximum":%d,"default":0,"description":"lines before and after each hit"},`+
	`"output":{"type":"string","enum":["hits","files","count"],"default":"hits","description":"hits: matching lines; files: paths of matching files; count: matching lines per file"},`+
	`"limit":{"type":"integer","minimum":1,"maximum":%d,"default":%d,"description":"most results returned (hits, files or counts)"}}}`,
	codesearch.MaxContext, codesearch.MaxLimit, codesearch.DefaultLimit)

func newGrep(e *codesearch.Engine) Tool {
	return New(protocol.ToolDescriptor{
		Name: "grep",
		Description: "Search file contents in the workspace. Literal text by default; isRegex for RE2 regular expressions. " +
			"A match never spans lines. Skipped like ripgrep: files ignored by .gitignore, .ignore or .git/info/exclude, " +
			"hidden files (unless glob names them), .git, node_modules and build output, binary files, files over the size limit. " +
			"output \"hits\" (default) gives {path, line, text} per matching line (text cut to 500 characters around the match; " +
			"context adds before/after lines), \"files\" the matching paths, \"count\" matching lines per file; " +
			"newest files first, paths relative to the workspace.",
		Mode:       protocol.ModeRead,
		Exposure:   protocol.ExposureDirect,
		Parameters: json.RawMessage(grepSchema),
	}, func(ctx context.Context, _ Call, a grepArgs) protocol.ToolResult {
		res, err := e.Grep(ctx, codesearch.GrepQuery{
			Query: codesearch.Query{Text: a.Query, Regex: a.IsRegex, IgnoreCase: a.IgnoreCase},
			Path:  a.Path, Glob: a.Glob, Context: a.Context, Output: codesearch.Output(a.Output), Limit: a.Limit,
		})
		if err != nil {
			return searchFailure(ctx, err)
		}
		return OK(grepMessage(a, res), grepData(a.Output, res))
	})
}

// grepData is the result's data: the list the output asks for (never
// null), the totals and what was skipped.
func grepData(output string, r codesearch.GrepResult) map[string]any {
	d := map[string]any{"truncated": r.Truncated, "matchedFiles": r.MatchedFiles, "searched": r.Stats.Searched,
		"skipped": map[string]int{"binary": r.Stats.Binary, "tooLarge": r.Stats.TooLarge, "unreadable": r.Stats.Unreadable,
			"denied": r.Stats.Denied}}
	switch codesearch.Output(output) {
	case codesearch.OutputFiles:
		d["files"] = nonNil(r.Files)
	case codesearch.OutputCount:
		d["counts"], d["matchedLines"] = nonNil(r.Counts), r.MatchedLines
	default:
		d["hits"], d["matchedLines"] = nonNil(r.Hits), r.MatchedLines
	}
	return d
}

// deniedNote says that credential stores were left out, and why.
func deniedNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("; skipped %s (skipped.denied): credential stores no tool reads (STEERABLE_SANDBOX_DENY_READ; "+
		"the user can lift one with STEERABLE_SANDBOX_ALLOW_READ)", plural(n, "credential store"))
}

// verb agrees "match" with a count.
func verb(n int) string {
	if n == 1 {
		return "matches"
	}
	return "match"
}

// grepMessage says what was found and, when the limit cut the list, how
// to see the rest.
func grepMessage(a grepArgs, r codesearch.GrepResult) string {
	var msg string
	switch {
	case r.MatchedFiles == 0:
		msg = fmt.Sprintf("no matches for %q in %s", a.Query, plural(r.Stats.Searched, "file"))
	case a.Output == string(codesearch.OutputFiles):
		msg = fmt.Sprintf("%s %s %q (%d searched)", plural(r.MatchedFiles, "file"), verb(r.MatchedFiles), a.Query, r.Stats.Searched)
	default:
		msg = fmt.Sprintf("%s in %s %s %q (%d searched)", plural(r.MatchedLines, "line"), plural(r.MatchedFiles, "file"), verb(r.MatchedLines), a.Query, r.Stats.Searched)
	}
	if r.Truncated {
		msg += "; showing the newest files first, cut at the limit: narrow it with path or glob, or raise limit (at most 1000)"
	}
	if n := r.Stats.Binary + r.Stats.TooLarge + r.Stats.Unreadable; n > 0 {
		msg += fmt.Sprintf("; skipped %s (binary %d, over the size limit %d, unreadable %d)", plural(n, "file"), r.Stats.Binary, r.Stats.TooLarge, r.Stats.Unreadable)
	}
	return msg + deniedNote(r.Stats.Denied)
}
