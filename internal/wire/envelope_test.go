package wire

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"steerable.dev/sidecar/protocol"
)

var frameSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"system.ping"}`,
	`{"jsonrpc":"2.0","id":"a","method":"tool.invoke","params":{"name":"x","arguments":{}}}`,
	`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}`,
	`{"jsonrpc":"2.0","id":"srv_1","result":{"decision":"allow"}}`,
	`{"jsonrpc":"2.0","id":"srv_2","error":{"code":-32601,"message":"x"}}`,
	`[{"jsonrpc":"2.0","id":1,"method":"system.ping"}]`,
	`{"jsonrpc":"2.0","id":1.5,"method":"x"}`,
	`{"jsonrpc":"2.0","id":18446744073709551616,"method":"x"}`,
	`{"jsonrpc":"2.0","id":null,"result":1}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","params":null}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","params":[1]}`,
	`{"id":1}`, `null`, `"`, `{`, "\x00", `{"jsonrpc":"2.0","id":1.5,"ID":1,"method":"x"}`, `{"jsonrpc":"2.0","id":1,"method":"x","meta":5}`,
}

func TestParse(t *testing.T) {
	tests := []struct {
		name, frame string
		kind        Kind
		code        protocol.Code // 0: accepted
		replyID     string
		msg         string
	}{
		{"request", `{"jsonrpc":"2.0","id":1,"method":"system.ping"}`, Request, 0, "", ""},
		{"notification", `{"jsonrpc":"2.0","method":"x","params":{}}`, Notification, 0, "", ""},
		{"response", `{"jsonrpc":"2.0","id":"srv_1","result":null}`, Response, 0, "", ""},
		{"not JSON", `{"jsonrpc"`, 0, protocol.CodeParse, "null", "parse error"},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"x"}]`, 0, protocol.CodeInvalidRequest, "null", "batch requests are not supported"},
		{"scalar", `5`, 0, protocol.CodeInvalidRequest, "null", "expected a JSON object"},
		{"version", `{"jsonrpc":"1.0","id":3,"method":"x"}`, 0, protocol.CodeInvalidRequest, "3", `"jsonrpc" must be "2.0"`},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"x"}`, 0, protocol.CodeInvalidRequest, "null", "id must be a string or a non-negative integer"},
		{"null request id", `{"jsonrpc":"2.0","id":null,"method":"x"}`, 0, protocol.CodeInvalidRequest, "null", "id must be"},
		{"method not string", `{"jsonrpc":"2.0","id":2,"method":5}`, 0, protocol.CodeInvalidRequest, "2", "method must be a string"},
		{"scalar params", `{"jsonrpc":"2.0","id":2,"method":"x","params":1}`, 0, protocol.CodeInvalidRequest, "2", "params must be an object or an array"},
		{"both result and error", `{"jsonrpc":"2.0","id":"srv_1","result":1,"error":{"code":1,"message":"m"}}`, Response, protocol.CodeInvalidRequest, `"srv_1"`, "not a request"},
		{"error not object", `{"jsonrpc":"2.0","id":"srv_1","error":5}`, Response, protocol.CodeInvalidRequest, `"srv_1"`, "error must be an object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, fe := Parse([]byte(tt.frame), nil)
			if m.Kind != tt.kind {
				t.Errorf("kind = %d, want %d", m.Kind, tt.kind)
			}
			if tt.code == 0 {
				if fe != nil {
					t.Fatalf("refused: %v", fe)
				}
				return
			}
			if fe == nil || fe.Code != tt.code || string(fe.ID) != tt.replyID || !strings.Contains(fe.Message, tt.msg) {
				t.Fatalf("frame error = %+v, want code %d id %s message ~ %q", fe, tt.code, tt.replyID, tt.msg)
			}
		})
	}
}

func TestIDKeys(t *testing.T) {
	if NewID([]byte(`"a"`)).Key != NewID([]byte(`"\u0061"`)).Key {
		t.Error(`"a" and "\u0061" are one id`)
	}
	if NewID([]byte(`7`)).Key == NewID([]byte(`"7"`)).Key {
		t.Error(`7 and "7" are two ids`)
	}
	if got := StringID("srv_3"); string(got.Raw) != `"srv_3"` || got.Key != NewID(got.Raw).Key {
		t.Errorf("StringID = %+v", got)
	}
}

// FuzzParse: no input panics; an accepted frame agrees with what
// encoding/json reads from it; a rejected frame gets a reply that is a
// one-line JSON-RPC error.
func FuzzParse(f *testing.F) {
	for _, s := range frameSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		msg, fe := Parse(b, nil)
		if fe == nil {
			checkAgainstDecoder(t, b, msg)
			return
		}
		var reply map[string]json.RawMessage
		out := fe.Reply()
		if err := json.Unmarshal(out, &reply); err != nil || reply["error"] == nil || bytes.ContainsRune(out, '\n') {
			t.Fatalf("reply %q to %q is not a one-line JSON-RPC error", out, b)
		}
	})
}

// checkAgainstDecoder: what Parse read from an accepted frame is what
// encoding/json reads from it, member by exact name.
func checkAgainstDecoder(t *testing.T, b []byte, msg Message) {
	t.Helper()
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		t.Fatalf("accepted %q, which encoding/json refuses: %v", b, err)
	}
	var method string
	if members["method"] != nil {
		json.Unmarshal(members["method"], &method)
	}
	if method != msg.Method {
		t.Fatalf("%q: method %q, encoding/json reads %q", b, msg.Method, method)
	}
	if got, want := string(msg.Params), string(orNil(members["params"])); got != want {
		t.Fatalf("%q: params %s, encoding/json reads %s", b, got, want)
	}
	if msg.Kind != Notification && msg.Kind != 0 && string(msg.ID.Raw) != string(members["id"]) {
		t.Fatalf("%q: id %s, encoding/json reads %s", b, msg.ID.Raw, members["id"])
	}
}
