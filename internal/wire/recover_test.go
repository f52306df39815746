package wire

import (
	"encoding/json"
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
