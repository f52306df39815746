package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// RecoverID finds the id of a frame that was too large to read whole, from
// its first bytes (head) or its last (tail); nil when neither shows a
// valid, non-null id. Hosts write "id" near the start (vscode-jsonrpc, the
// MCP SDKs, the clients here) or last; in either place the member is at the
// top level by construction (below), so a string value that merely
// contains "id" is never taken for it.
func RecoverID(head, tail []byte) []byte {
	if id := idFromHead(head); id != nil {
		return id
	}
	return idFromTail(tail)
}

// idFromHead reads the top-level members of the truncated object in head,
// in order, until it meets "id" or the truncation.
func idFromHead(head []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(head))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		if key == "id" {
			return idValue(dec)
		}
		if skipToken(dec) != nil {
			return nil
		}
	}
	return nil
}

// idValue reads the value of an "id" member: a string or a non-negative
// integer, as JSON.
func idValue(dec *json.Decoder) []byte {
	t, err := dec.Token()
	if err != nil {
		return nil
	}
	var raw []byte
	switch v := t.(type) {
	case string:
		raw, _ = json.Marshal(v)
	case json.Number:
		raw = []byte(v.String())
	default:
		return nil
	}
	if !ValidID(raw) {
		return nil
	}
	return raw
}

// skipToken skips one value, however deeply nested.
func skipToken(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth <= 0 {
			if depth < 0 {
				return io.ErrUnexpectedEOF
			}
			return nil
		}
	}
}

var errNoID = errors.New("no id")

// idFromTail reads a frame that ends `"id":VALUE}`: nothing between the id
// and the final brace opens or closes anything, so the brace that closes
// the frame's object closes the id's, and the id is a top-level member.
// Inside a string every quote is escaped, so a string's content cannot end
// the frame this way.
func idFromTail(tail []byte) []byte {
	b := bytes.TrimRight(tail, " \t\r\n")
	if len(b) == 0 || b[len(b)-1] != '}' {
		return nil
	}
	b = bytes.TrimRight(b[:len(b)-1], " \t\r\n")
	start, err := valueStart(b)
	if err != nil {
		return nil
	}
	value := b[start:]
	b = bytes.TrimRight(b[:start], " \t\r\n")
	if !bytes.HasSuffix(b, []byte(":")) {
		return nil
	}
	b = bytes.TrimRight(b[:len(b)-1], " \t\r\n")
	if !bytes.HasSuffix(b, []byte(`"id"`)) {
		return nil
	}
	b = bytes.TrimRight(b[:len(b)-len(`"id"`)], " \t\r\n")
	if len(b) == 0 || (b[len(b)-1] != ',' && b[len(b)-1] != '{') {
		return nil
	}
	if !json.Valid(value) || string(value) == "null" || !ValidID(value) {
		return nil
	}
	return bytes.Clone(value)
}

// valueStart finds where the string or number that ends b starts.
func valueStart(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, errNoID
	}
	i := len(b) - 1
	if b[i] == '"' {
		for j := i - 1; j >= 0; j-- {
			if b[j] == '"' && backslashesBefore(b, j)%2 == 0 {
				return j, nil
			}
		}
		return 0, errNoID
	}
	for i >= 0 && b[i] >= '0' && b[i] <= '9' {
		i--
	}
	if i == len(b)-1 {
		return 0, errNoID
	}
	return i + 1, nil
}

func backslashesBefore(b []byte, j int) int {
	n := 0
	for j--; j >= 0 && b[j] == '\\'; j-- {
		n++
	}
	return n
}
