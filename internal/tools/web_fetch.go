package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"steerable.dev/sidecar/internal/web"
	"steerable.dev/sidecar/protocol"
)

type webFetchArgs struct {
	URL    string `json:"url"`
	Format string `json:"format"`
}

const webFetchSchema = `{"type":"object","properties":{
"url":{"type":"string","description":"absolute http:// or https:// URL of a public page (at most 2048 bytes, no credentials)"},
"format":{"type":"string","enum":["markdown","text","raw"],"description":"markdown (default): HTML converted to Markdown; text: the page's readable text; raw: the body as sent. Non-HTML text is returned as is."}},
"required":["url"],"additionalProperties":false}`

// WebFetch is web_fetch (SPEC §4.3): the checks and bounds live in
// web.Fetcher; this file maps its outcomes to results, and dl completes a
// refusal of a binary body with what this session can download it with.
func WebFetch(f *web.Fetcher, dl Downloads) Tool {
	return New(protocol.ToolDescriptor{
		Name: "web_fetch",
		Description: "Fetch a public web page over http(s) and return its content (HTML as Markdown by default). " +
			"Same-origin redirects are followed; a redirect to another origin is reported in data.redirect_to, not followed. " +
			"Text content only: a binary file is refused, saying how this session can download it, if it can. Private, loopback and link-local addresses are refused.",
		Mode: protocol.ModeRead, Exposure: protocol.ExposureDirect,
		Parameters: json.RawMessage(webFetchSchema),
	}, func(ctx context.Context, _ Call, a webFetchArgs) protocol.ToolResult {
		format := a.Format
		if format == "" {
			format = web.FormatMarkdown
		}
		page, err := f.Fetch(ctx, a.URL, format)
		if err != nil {
			return webFetchFailure(a.URL, err, dl)
		}
		return webFetchResult(page)
	})
}

func webFetchResult(p *web.Page) protocol.ToolResult {
	data := map[string]any{
		"url": p.URL, "finalUrl": p.FinalURL, "status": p.Status, "contentType": p.ContentType,
		"bytes": p.Bytes, "truncated": p.Truncated, "content": p.Content,
	}
	if len(p.Warnings) > 0 {
		data["warnings"] = p.Warnings
	}
	if p.Status >= 400 {
		res := Followup("%s answered HTTP %d; the body is in data.content", p.FinalURL, p.Status)
		res.Data = data
		return res
	}
	msg := fmt.Sprintf("fetched %s (%d bytes)", p.FinalURL, p.Bytes)
	if p.Truncated {
		msg = fmt.Sprintf("fetched %s: the first %d bytes (truncated at STEERABLE_WEB_FETCH_MAX_BYTES)", p.FinalURL, p.Bytes)
	}
	return OK(msg, data)
}

func webFetchFailure(url string, err error, dl Downloads) protocol.ToolResult {
	data := map[string]any{"url": url}
	var re *web.RedirectError
	var se *web.StatusError
	var ce *web.ContentError
	switch {
	case errors.As(err, &re):
		data["redirect_to"] = re.To
	case errors.As(err, &se):
		data["status"] = se.Status
	case errors.As(err, &ce) && ce.Download:
		err = fmt.Errorf("%w; %s", err, dl.hint(ce.Encoding))
	}
	return webFailure("web_fetch", err, data)
}

// webFailure maps a web tool's error: a misconfigured egress is terminal
// (no retry can fix it; the error tells the user what to set); everything
// else is the model's to fix or route around, and data.kind names the check
// that refused.
func webFailure(tool string, err error, data map[string]any) protocol.ToolResult {
	if errors.Is(err, web.ErrEgressMisconfigured) {
		return Terminal("%s is unavailable: %v", tool, err)
	}
	res := Followup("%v", err)
	data["kind"] = web.Kind(err)
	res.Data = data
	return res
}
