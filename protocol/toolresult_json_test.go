package protocol

import (
	"encoding/json"
	"testing"
)

// FuzzToolResultAppendJSON: AppendJSON writes MarshalJSON's bytes for
// results of every shape a tool returns, the fast values and the ones it
// leaves to encoding/json alike.
func FuzzToolResultAppendJSON(f *testing.F) {
	f.Add(true, false, "Read a.txt (2 lines, 9 bytes).", "", "line 1\nline <2> & \"3\"\n", int64(9), 1.5, "future")
	f.Add(false, true, "", "no such file: \xff", "\u2028", int64(-1<<40), 0.0, "")
	f.Fuzz(func(t *testing.T, success, followup bool, message, errText, content string, n int64, x float64, extra string) {
		for _, r := range []ToolResult{
			{Success: success, NeedsFollowup: followup, Terminal: !followup, NextAction: extra, Message: message, Error: errText},
			{Success: success, Message: message, Data: map[string]any{
				"content": content, "bytes": int(n), "n64": n, "partial": followup, "ratio": x, "none": nil,
				"lines": []string{content, message}, "nilLines": []string(nil), "mixed": []any{content, n, true, nil, map[string]any{}},
				"nested": map[string]any{content: map[string]any{"z": errText, "a": []map[string]any{{"k": n}}}},
				"other":  []int{1, 2}, "raw": json.RawMessage(`{"a": 1}`), "nilMap": map[string]any(nil),
			}},
			{Success: true, Data: map[string]any{}, Extra: map[string]json.RawMessage{"x" + extra: json.RawMessage(`[1, 2]`)}},
			{Success: true, Message: message, Data: map[string]any{"path": content}, Content: []ContentBlock{
				{Type: ContentText, Text: content}, {Type: ContentImage, MimeType: errText, Data: []byte(content)},
				{Type: ContentDocument, MimeType: "application/pdf", Data: []byte(extra)}, {Type: extra},
			}, Extra: map[string]json.RawMessage{"traceId": json.RawMessage(`"t"`)}},
		} {
			want, wantErr := r.MarshalJSON()
			got, err := r.AppendJSON([]byte("prefix:"))
			if (err != nil) != (wantErr != nil) || (err == nil && string(got) != "prefix:"+string(want)) {
				t.Fatalf("AppendJSON = %s, %v\nMarshalJSON %s, %v", got, err, want, wantErr)
			}
		}
	})
}

// BenchmarkToolResultAppendJSON: the reply to a read_file of 4 KiB.
func BenchmarkToolResultAppendJSON(b *testing.B) {
	content := ""
	for range 64 {
		content += "a line of text, 64 bytes long, as source files often have....\n"
	}
	r := ToolResult{Success: true, Message: "Read /ws/f.txt (64 lines, 4096 bytes).", Data: map[string]any{
		"path": "/ws/f.txt", "content": content, "version": "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		"partial": false, "totalLines": 64, "bytes": 4096,
	}}
	buf := make([]byte, 0, 8<<10)
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = r.AppendJSON(buf[:0])
	}
}
