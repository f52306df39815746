package wire

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestRecoverID(t *testing.T) {
	big := strings.Repeat("x", 1000)
	tests := []struct {
		name, head, tail, want string
	}{
		{"id first", `{"jsonrpc":"2.0","id":7,"method":"tool.invoke","params":{"a":"` + big, "", "7"},
		{"string id after params object", `{"jsonrpc":"2.0","method":"m","params":{"x":[1,{"y":2}]},"id":"c-1","more":"` + big, "", `"c-1"`},
		{"escaped string id", `{"id":"a\"b","params":"` + big, "", `"a\"b"`},
		{"id only in the tail", `{"jsonrpc":"2.0","method":"m","params":{"content":"` + big, big + `"},"id":42}` + "\n", "42"},
		{"string id in the tail", `{"params":"` + big, `xx"}, "id" : "q\"1" }`, `"q\"1"`},
		{"nested id in the tail is not the frame's", `{"params":"` + big, `x","o":{"id":5}}`, ""},
		{"id inside a string in the tail", `{"params":"` + big, `\",\"id\":5}"}`, ""},
		{"id inside params in the head", `{"params":{"id":3,"c":"` + big, "", ""},
		{"null id", `{"id":null,"params":"` + big, `"}`, ""},
		{"negative id", `{"id":-1,"params":"` + big, "", ""},
		{"fractional id", `{"id":1.5,"params":"` + big, "", ""},
		{"not an object", `["id",1` + big, "", ""},
		{"garbage", big, big, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(RecoverID([]byte(tt.head), []byte(tt.tail))); got != tt.want {
				t.Errorf("RecoverID = %q, want %q", got, tt.want)
			}
		})
	}
}

// An oversized frame's error says whether its head named a method: a
// client answers an oversized reply in its peer's place, never a call.
func TestTooLargeKnowsCallsFromReplies(t *testing.T) {
	pad := strings.Repeat("y", 100<<10) // past the head kept
	tests := []struct {
		name, frame string
		id          string
		method      bool
	}{
		{"reply, id first", `{"jsonrpc":"2.0","id":7,"result":{"text":"` + pad + `"}}`, "7", false},
		{"reply, id last", `{"result":{"text":"` + pad + `"},"jsonrpc":"2.0","id":"a"}`, `"a"`, false},
		{"request", `{"jsonrpc":"2.0","id":4,"method":"sampling/createMessage","params":{"x":"` + pad + `"}}`, "4", true},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/message","params":{"x":"` + pad + `"}}`, "", true},
		{"method only inside the result", `{"jsonrpc":"2.0","id":2,"result":{"method":"` + pad + `"}}`, "2", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, framing := range []string{FramingNewline, FramingContentLength} {
				in := tt.frame + "\n"
				if framing == FramingContentLength {
					in = lsp(tt.frame)
				}
				_, err := NewReader(strings.NewReader(in), framing, 1024, "LIMIT", nil).Next()
				var tl *TooLargeError
				if !errors.As(err, &tl) {
					t.Fatalf("%s: err %v, want *TooLargeError", framing, err)
				}
				if string(tl.ID) != tt.id || tl.Method != tt.method {
					t.Errorf("%s: id %s method %v, want %s %v", framing, tl.ID, tl.Method, tt.id, tt.method)
				}
			}
		})
	}
}

// FuzzRecoverID: no input panics, and what it recovers is always a valid,
// non-null id.
func FuzzRecoverID(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":"`), []byte(`"}}`))
	f.Add([]byte(`{"params":{"a":"`), []byte(`"},"id":"z"}`))
	f.Add([]byte(`{"id":"\u00e9"`), []byte(`\\"id":1}`))
	f.Fuzz(func(t *testing.T, head, tail []byte) {
		id := RecoverID(head, tail)
		if id == nil {
			return
		}
		if !json.Valid(id) || string(id) == "null" || !ValidID(id) {
			t.Fatalf("recovered %q from %q … %q", id, head, tail)
		}
	})
}
