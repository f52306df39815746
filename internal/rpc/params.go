package rpc

import (
	"encoding/json"

	"steerable.dev/sidecar/protocol"
)

// fastToolInvoke reads tool.invoke params the way tool.invoke.params.json
// accepts them — an object with exactly the members id (non-empty string),
// name (non-empty string), arguments (object) and consentGranted (boolean),
// name and arguments required — in one pass over the members, without the
// schema's generic decoding or reflection: tool.invoke is nearly every
// request a host sends. arguments stays a span of the frame. Anything it is
// not sure of (an unknown or repeated member, a wrong type, an empty
// string) answers false, and the schema decides and names the problem;
// FuzzToolInvokeFastPath checks that it never accepts what the schema
// refuses, and decodes as encoding/json does.
func fastToolInvoke(raw json.RawMessage) (protocol.ToolInvokeParams, bool) {
	var p protocol.ToolInvokeParams
	var id, name, args, consent bool
	ok := true
	once := func(seen *bool) bool {
		dup := *seen
		*seen = true
		return !dup
	}
	isObject := protocol.EachMember(raw, func(key, v []byte) {
		switch string(key) {
		case "id":
			ok = ok && once(&id) && nonEmptyString(v)
			p.ID = protocol.Unquote(v)
		case "name":
			ok = ok && once(&name) && nonEmptyString(v)
			p.Name = protocol.Unquote(v)
		case "arguments":
			ok = ok && once(&args) && v[0] == '{'
			p.Arguments = v
		case "consentGranted":
			ok = ok && once(&consent) && (string(v) == "true" || string(v) == "false")
			p.ConsentGranted = string(v) == "true"
		default:
			ok = false
		}
	})
	return p, isObject && ok && name && args
}

// nonEmptyString: v (valid JSON) is a string of at least one character.
func nonEmptyString(v []byte) bool {
	return len(v) > 2 && v[0] == '"'
}
