package wire

import (
	"encoding/json"
	"strconv"

	"steerable.dev/sidecar/protocol"
)

// ID is a request id as it came on the wire and as a map key. Raw is echoed
// in the reply byte for byte; Key is the same for every spelling of one id
// (7 and 7, "a" and "\u0061") and differs between 7 and "7".
type ID struct {
	Raw json.RawMessage
	Key string
}

func (id ID) String() string { return string(id.Raw) }

// NewID reads a valid, non-null id (ValidID): a string or a non-negative
// integer.
func NewID(raw json.RawMessage) ID {
	if raw[0] == '"' {
		return ID{Raw: raw, Key: "s" + protocol.Unquote(raw)}
	}
	n, _ := strconv.ParseUint(string(raw), 10, 63)
	return ID{Raw: raw, Key: "n" + strconv.FormatUint(n, 10)}
}

// StringID is the id of one of the sidecar's own requests ("srv_1").
func StringID(s string) ID {
	return ID{Raw: json.RawMessage(strconv.Quote(s)), Key: "s" + s}
}

// ValidID accepts what an id may be: a string, a non-negative integer that
// fits in int64, or null. raw must be valid JSON.
func ValidID(raw []byte) bool {
	switch {
	case len(raw) == 0:
		return false
	case string(raw) == "null":
		return true
	case raw[0] == '"':
		return true // json.Valid checked the string
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	return err == nil && n >= 0
}

// NullID is the id of a reply to a frame whose id could not be read.
var NullID = json.RawMessage("null")
