package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Decode decodes one JSON value as the validator needs it: numbers stay
// json.Numbers, so 1.0 and 10000000000000000001 are checked as written.
func Decode(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return v, nil
}

// Kind names a decoded JSON value's kind for an error message: "an
// object", "an array", "a string", "a number", "a boolean" or "null".
func Kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	}
	return "an object"
}

// maxErrors bounds a validation report: a huge instance can fail
// thousands of times and the reader needs the first few.
const maxErrors = 12

var printer = message.NewPrinter(language.English)

// Errors flattens a validation error into one line per failing JSON
// pointer and what was expected, e.g.
//
//	at /path: got number, want string
//	at /: missing property 'content'
func Errors(err error) []string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []string{err.Error()}
	}
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			out = append(out, fmt.Sprintf("at %s: %s", jsonPointer(e.InstanceLocation), e.ErrorKind.LocalizedString(printer)))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	if len(out) > maxErrors {
		out = append(out[:maxErrors], fmt.Sprintf("and %d more", len(out)-maxErrors))
	}
	return out
}

// jsonPointer renders an instance location as an RFC 6901 pointer ("/" for
// the root).
func jsonPointer(loc []string) string {
	if len(loc) == 0 {
		return "/"
	}
	var b strings.Builder
	for _, tok := range loc {
		b.WriteByte('/')
		b.WriteString(escapePointer(tok))
	}
	return b.String()
}

// escapePointer escapes one reference token of a JSON pointer.
func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
