package protocol

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"strconv"
)

// AppendJSON implements JSONAppender: MarshalJSON's bytes, appended without
// reflection. Every reply of tool.invoke is one, most of it a file's
// content or a command's output in data: encoding/json's map encoder
// reflects over each value, sorts the keys through reflect.Value, escapes
// the content into a buffer of its own and copies that out. Here the
// values the built-in tools put in data (strings, booleans, integers, maps
// and slices of them) are appended directly; any other value, and Extra,
// goes through encoding/json, so the bytes are always MarshalJSON's
// (FuzzToolResultAppendJSON compares the two).
func (r ToolResult) AppendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, `{"success":`...)
	dst = strconv.AppendBool(dst, r.Success)
	if r.Terminal {
		dst = append(dst, `,"terminal":true`...)
	}
	if r.NeedsFollowup {
		dst = append(dst, `,"needsFollowup":true`...)
	}
	dst = appendStringMember(dst, `,"nextAction":`, r.NextAction)
	dst = appendStringMember(dst, `,"message":`, r.Message)
	dst = appendStringMember(dst, `,"error":`, r.Error)
	var err error
	if len(r.Data) > 0 {
		dst = append(dst, `,"data":`...)
		if dst, err = appendJSONMap(dst, r.Data); err != nil {
			return dst, err
		}
	}
	if len(r.Content) > 0 {
		dst = appendContent(append(dst, `,"content":`...), r.Content)
	}
	if len(r.Extra) > 0 {
		extra, err := json.Marshal(r.Extra)
		if err != nil {
			return dst, err
		}
		dst = append(append(dst, ','), extra[1:len(extra)-1]...)
	}
	return append(dst, '}'), nil
}

// appendContent appends blocks as encoding/json writes them: fields in
// struct order, empty ones left out, data in standard base64.
func appendContent(dst []byte, blocks []ContentBlock) []byte {
	dst = append(dst, '[')
	for i, b := range blocks {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendJSONString(append(dst, `{"type":`...), b.Type)
		dst = appendStringMember(dst, `,"text":`, b.Text)
		dst = appendStringMember(dst, `,"mimeType":`, b.MimeType)
		if len(b.Data) > 0 {
			dst = base64.StdEncoding.AppendEncode(append(dst, `,"data":"`...), b.Data)
			dst = append(dst, '"')
		}
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// appendStringMember appends an omitempty string member.
func appendStringMember(dst []byte, name, s string) []byte {
	if s == "" {
		return dst
	}
	return AppendJSONString(append(dst, name...), s)
}

// appendJSONValue appends v as encoding/json writes it.
func appendJSONValue(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case string:
		return AppendJSONString(dst, x), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case int:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case map[string]any:
		return appendJSONMap(dst, x)
	case []any:
		return appendJSONSlice(dst, x)
	case []string:
		return appendJSONSlice(dst, x)
	case []map[string]any:
		return appendJSONSlice(dst, x)
	}
	b, err := json.Marshal(v) // floats, other types, Marshalers: encoding/json's own rules
	return append(dst, b...), err
}

// appendJSONMap appends m with its keys sorted, as encoding/json does; a
// nil map is null.
func appendJSONMap(dst []byte, m map[string]any) ([]byte, error) {
	if m == nil {
		return append(dst, "null"...), nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	var err error
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(AppendJSONString(dst, k), ':')
		if dst, err = appendJSONValue(dst, m[k]); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

// appendJSONSlice appends s as an array; a nil slice is null.
func appendJSONSlice[T any](dst []byte, s []T) ([]byte, error) {
	if s == nil {
		return append(dst, "null"...), nil
	}
	dst = append(dst, '[')
	var err error
	for i, v := range s {
		if i > 0 {
			dst = append(dst, ',')
		}
		if dst, err = appendJSONValue(dst, v); err != nil {
			return dst, err
		}
	}
	return append(dst, ']'), nil
}
