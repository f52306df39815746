package scripttest

import (
	"encoding/json"
	"testing"
)

func TestIDJSON(t *testing.T) {
	for id, want := range map[string]string{"7": "7", "null": "null", "init": `"init"`, "-1": `"-1"`, "call-1": `"call-1"`} {
		if got := idJSON(id); got != want {
			t.Errorf("idJSON(%q) = %s, want %s", id, got, want)
		}
	}
}

// A frame prints with its keys sorted at every level and its numbers as
// the sidecar wrote them.
func TestCanonical(t *testing.T) {
	var f Frame
	if err := json.Unmarshal([]byte(`{"jsonrpc":"2.0","id":1,"result":{"z":1.50,"a":[{"y":2,"b":12345678901234567890}]}}`), &f); err != nil {
		t.Fatal(err)
	}
	got, err := canonical(f)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"id":1,"jsonrpc":"2.0","result":{"a":[{"b":12345678901234567890,"y":2}],"z":1.50}}`; string(got) != want {
		t.Errorf("canonical = %s, want %s", got, want)
	}
}

func TestMatchers(t *testing.T) {
	reply := Frame{"jsonrpc": json.RawMessage(`"2.0"`), "id": json.RawMessage(` "x" `), "result": json.RawMessage(`{}`)}
	note := Frame{"jsonrpc": json.RawMessage(`"2.0"`), "method": json.RawMessage(`"lifecycle.ready"`)}
	request := Frame{"jsonrpc": json.RawMessage(`"2.0"`), "id": json.RawMessage(`3`), "method": json.RawMessage(`"lifecycle.ready"`)}
	if !ReplyTo(`"x"`)(reply) || ReplyTo(`3`)(request) || ReplyTo(`"y"`)(reply) {
		t.Error("ReplyTo matches a reply by its JSON id, and nothing with a method")
	}
	if !Notification("lifecycle.ready")(note) || Notification("lifecycle.ready")(request) || Notification("other")(note) {
		t.Error("Notification matches a frame of its method without an id")
	}
}
