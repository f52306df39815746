package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// ToolCall is what the model asks to run (tools-spec "ToolCall"). It is
// strict: the schema has additionalProperties:false.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// ToolResult is what the runtime reports back (tools-spec "ToolResult"). It
// is open for forward compatibility: fields this version does not know are
// kept in Extra and written back unchanged, so a host tool's result passes
// through the sidecar intact.
type ToolResult struct {
	Success       bool           `json:"success"`
	Terminal      bool           `json:"terminal,omitempty"`
	NeedsFollowup bool           `json:"needsFollowup,omitempty"`
	NextAction    string         `json:"nextAction,omitempty"`
	Message       string         `json:"message,omitempty"`
	Error         string         `json:"error,omitempty"`
	Data          map[string]any `json:"data,omitempty"`
	// Content is what the model should see, when plain text is not enough
	// (an image, a PDF, a notebook with plots): blocks shaped one to one
	// like MCP's content and the model APIs' tool-result blocks. Data keeps
	// the metadata, so a host that ignores Content still works.
	Content []ContentBlock `json:"content,omitempty"`

	Extra map[string]json.RawMessage `json:"-"`
}

// Content block types (SPEC §3).
const (
	ContentText     = "text"
	ContentImage    = "image"
	ContentDocument = "document"
)

// ContentBlock is one model-facing block of a ToolResult: {type:"text",
// text}, {type:"image", mimeType, data} or {type:"document", mimeType,
// data}; data is base64 on the wire.
type ContentBlock struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
	Data     []byte `json:"data,omitempty"`
}

// IsTerminal reports whether a result ends the run: terminal is set, or the
// call failed without asking for a follow-up (tools-spec "Completion
// semantics").
func IsTerminal(r ToolResult) bool {
	return r.Terminal || (!r.Success && !r.NeedsFollowup)
}

// toolResultFields are the JSON names the struct owns; anything else is Extra.
var toolResultFields = map[string]bool{
	"success": true, "terminal": true, "needsFollowup": true, "nextAction": true,
	"message": true, "error": true, "data": true, "content": true,
}

type toolResultJSON ToolResult // no methods: breaks the recursion

// MarshalJSON writes the known fields followed by Extra.
func (r ToolResult) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(toolResultJSON(r))
	if err != nil || len(r.Extra) == 0 {
		return b, err
	}
	extra, err := json.Marshal(r.Extra)
	if err != nil {
		return nil, err
	}
	// Splice {"a":1} + {"x":2} into {"a":1,"x":2}; the known part always has
	// "success", so it is never empty.
	return append(append(b[:len(b)-1], ','), extra[1:]...), nil
}

// UnmarshalJSON reads the known fields (numbers in data as json.Number, so
// large integers survive a round trip) and keeps unknown ones in Extra.
func (r *ToolResult) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if raw == nil {
		return fmt.Errorf("tool result must be an object, got null")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var known struct {
		toolResultJSON
		Content json.RawMessage `json:"content"` // read by contentBlocks
	}
	if err := dec.Decode(&known); err != nil {
		return err
	}
	*r = ToolResult(known.toolResultJSON)
	if c, ok := raw["content"]; ok {
		if r.Content, ok = contentBlocks(c); !ok {
			r.Extra = map[string]json.RawMessage{"content": c}
		}
	}
	for k, v := range raw {
		if !toolResultFields[k] {
			if r.Extra == nil {
				r.Extra = map[string]json.RawMessage{}
			}
			r.Extra[k] = v
		}
	}
	return nil
}

// contentBlocks reads a content array made only of the blocks this
// version knows; anything else (another block type, an unknown field, not
// an array) is not ok, and the caller keeps it verbatim in Extra, so a host
// tool's result passes through intact.
func contentBlocks(raw json.RawMessage) ([]ContentBlock, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var blocks []ContentBlock
	if dec.Decode(&blocks) != nil || len(blocks) == 0 {
		return nil, false
	}
	for _, b := range blocks { // only shapes that write back byte for byte
		switch b.Type {
		case ContentText:
			if b.Text == "" || b.MimeType != "" || b.Data != nil {
				return nil, false
			}
		case ContentImage, ContentDocument:
			if b.Text != "" || b.MimeType == "" || len(b.Data) == 0 {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	return blocks, true
}

// Mode classifies a tool's effects for consent decisions (tools-spec
// "ToolMode").
type Mode string

// The five modes.
const (
	ModeRead        Mode = "read"
	ModeSafeWrite   Mode = "safe_write"
	ModeDestructive Mode = "destructive"
	ModeLocal       Mode = "local"
	ModeExternal    Mode = "external"
)

// Valid reports whether m is one of the five modes.
func (m Mode) Valid() bool {
	switch m {
	case ModeRead, ModeSafeWrite, ModeDestructive, ModeLocal, ModeExternal:
		return true
	}
	return false
}

// Exposure is the tier that decides where a tool is offered (tools-spec
// "Exposure tiers"). Dispatch never checks it.
type Exposure string

// The three tiers.
const (
	ExposureDirect   Exposure = "direct"
	ExposureDeferred Exposure = "deferred"
	ExposureHidden   Exposure = "hidden"
)

// Valid reports whether e is one of the three tiers.
func (e Exposure) Valid() bool {
	return e == ExposureDirect || e == ExposureDeferred || e == ExposureHidden
}

// ToolDescriptor describes one registered tool. In tool.list results every
// field is set; in host_tools.register params mode and exposure are optional
// (classified like any tool) and source is ignored.
type ToolDescriptor struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Mode        Mode            `json:"mode,omitempty"`
	Exposure    Exposure        `json:"exposure,omitempty"`
	Source      string          `json:"source,omitempty"`
}

// Tool sources other than plugins ("plugin:<name>").
const (
	SourceBuiltin = "builtin"
	SourceHost    = "host"
)
