package runcode

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"steerable.dev/sidecar/protocol"
)

func TestDecodeAcceptsTheProtocol(t *testing.T) {
	tests := []struct {
		line string
		want Frame
	}{
		{`{"v":1,"type":"call","id":1,"tool":"read_file","arguments":{"path":"a"}}`,
			Call{ID: 1, Tool: "read_file", Arguments: json.RawMessage(`{"path":"a"}`)}},
		{`{"v":1,"type":"call","id":7,"tool":"x"}`, Call{ID: 7, Tool: "x", Arguments: json.RawMessage(`{}`)}},
		{` {"type":"call","v":1,"id":9007199254740993,"tool":"t","arguments": { } } `,
			Call{ID: 9007199254740993, Tool: "t", Arguments: json.RawMessage(`{ }`)}},
		{`{"v":1,"type":"done","ok":true,"value":{"n":2}}`, Done{OK: true, Value: json.RawMessage(`{"n":2}`)}},
		{`{"v":1,"type":"done","ok":true,"value":null}`, Done{OK: true, Value: json.RawMessage(`null`)}},
		{`{"v":1,"type":"done","ok":false,"kind":"exception","error":"ValueError: x","traceback":"tb","line":3}`,
			Done{Kind: KindException, Error: "ValueError: x", Traceback: "tb", Line: 3}},
		{`{"v":1,"type":"done","ok":false,"kind":"syntax","error":"SyntaxError: bad"}`, Done{Kind: KindSyntax, Error: "SyntaxError: bad"}},
	}
	for _, tt := range tests {
		got, err := Decode([]byte(tt.line))
		if err != nil {
			t.Errorf("Decode(%s): %v", tt.line, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Decode(%s) (-want +got):\n%s", tt.line, diff)
		}
	}
}

// The child is model-directed: every malformed frame is refused with a
// reason, never half-read.
func TestDecodeRefusesMalformedFrames(t *testing.T) {
	tests := []struct{ line, reason string }{
		{``, "EOF"},
		{`not json`, "invalid character"},
		{`[1,2]`, "cannot unmarshal array"},
		{`"call"`, "cannot unmarshal string"},
		{`{"v":1,"type":"call","id":1,"tool":"x"} {"v":1}`, "trailing data"},
		{`{"type":"call","id":1,"tool":"x"}`, `no "v"`},
		{`{"v":2,"type":"call","id":1,"tool":"x"}`, "version 2"},
		{`{"v":"1","type":"call","id":1,"tool":"x"}`, "cannot unmarshal string"},
		{`{"v":1,"id":1,"tool":"x"}`, `no "type"`},
		{`{"v":1,"type":"log","text":"hi"}`, "unknown field"},
		{`{"v":1,"type":"log"}`, `unknown type "log"`},
		{`{"v":1,"type":"call","id":1,"tool":"x","extra":1}`, "unknown field"},
		{`{"v":1,"type":"call","tool":"x"}`, "positive integer"},
		{`{"v":1,"type":"call","id":0,"tool":"x"}`, "positive integer"},
		{`{"v":1,"type":"call","id":-4,"tool":"x"}`, "positive integer"},
		{`{"v":1,"type":"call","id":1.5,"tool":"x"}`, "cannot unmarshal number"},
		{`{"v":1,"type":"call","id":"1","tool":"x"}`, "cannot unmarshal string"},
		{`{"v":1,"type":"call","id":1}`, `needs a "tool"`},
		{`{"v":1,"type":"call","id":1,"tool":""}`, `needs a "tool"`},
		{`{"v":1,"type":"call","id":1,"tool":"` + strings.Repeat("t", 257) + `"}`, "tool name of 257 bytes"},
		{`{"v":1,"type":"call","id":1,"tool":"x","arguments":[1]}`, "must be a JSON object"},
		{`{"v":1,"type":"call","id":1,"tool":"x","arguments":"a"}`, "must be a JSON object"},
		{`{"v":1,"type":"call","id":1,"tool":"x","arguments":null}`, "must be a JSON object"},
		{`{"v":1,"type":"call","id":1,"tool":"x","ok":true}`, "only id, tool and arguments"},
		{`{"v":1,"type":"done","value":1}`, `needs "ok"`},
		{`{"v":1,"type":"done","ok":true}`, `carries "value" and nothing else`},
		{`{"v":1,"type":"done","ok":true,"value":1,"error":"x"}`, `carries "value" and nothing else`},
		{`{"v":1,"type":"done","ok":true,"value":1,"id":3}`, "no id, tool or arguments"},
		{`{"v":1,"type":"done","ok":false,"kind":"exception"}`, `non-empty "error"`},
		{`{"v":1,"type":"done","ok":false,"kind":"exception","error":""}`, `non-empty "error"`},
		{`{"v":1,"type":"done","ok":false,"error":"x"}`, `"kind" must be`},
		{`{"v":1,"type":"done","ok":false,"kind":"other","error":"x"}`, `"kind" must be`},
		{`{"v":1,"type":"done","ok":false,"kind":"exception","error":"x","value":1}`, `no "value"`},
		{`{"v":1,"type":"done","ok":false,"kind":"exception","error":"x","line":-1}`, "negative"},
		{`{"v":1,"type":"done","ok":"yes","value":1}`, "cannot unmarshal string"},
	}
	for _, tt := range tests {
		_, err := Decode([]byte(tt.line))
		if !errors.Is(err, ErrFrame) || !strings.Contains(err.Error(), tt.reason) {
			t.Errorf("Decode(%.80s) = %v, want ErrFrame with %q", tt.line, err, tt.reason)
		}
	}
}

func TestEncodedMessagesAreOneLineEach(t *testing.T) {
	tests := []struct {
		got  []byte
		want string
	}{
		{EncodeStart("return 'a\nb'", 100), `{"v":1,"type":"start","code":"return 'a\nb'","maxResultBytes":100}` + "\n"},
		{EncodeResult(3, protocol.ToolResult{Success: true, Data: map[string]any{"x": 1}}),
			`{"v":1,"type":"reply","id":3,"ok":true,"result":{"success":true,"data":{"x":1}}}` + "\n"},
		{EncodeRefusal(4, "over the limit"), `{"v":1,"type":"reply","id":4,"ok":false,"error":"over the limit"}` + "\n"},
		{EncodeResult(5, protocol.ToolResult{Success: true, Data: map[string]any{"bad": math.NaN()}}),
			`{"v":1,"type":"reply","id":5,"ok":true,"result":{"success":false,"error":"the result of this call could not be encoded as JSON: json: unsupported value: NaN"}}` + "\n"},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, string(tt.got)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	}
}

// FuzzDecode: whatever the child writes, Decode neither panics nor accepts
// a frame that breaks the invariants the bridge relies on.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"v":1,"type":"call","id":1,"tool":"read_file","arguments":{"path":"a"}}`,
		`{"v":1,"type":"done","ok":true,"value":[1,2,{"a":null}]}`,
		`{"v":1,"type":"done","ok":false,"kind":"exception","error":"E: m","traceback":"t","line":2}`,
		`{"v":1,"type":"call","id":1,"tool":"x","arguments":{"a":"\ud800"}}`,
		`{"v":1,"type":"call","id":1e3,"tool":"x"}`, `{}`, `null`, "\x00", `{"v":1,"type":"done","ok":true,"value":1e999}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		fr, err := Decode(line)
		if err != nil {
			if !errors.Is(err, ErrFrame) {
				t.Fatalf("error %v does not wrap ErrFrame", err)
			}
			return
		}
		switch fr := fr.(type) {
		case Call:
			var obj map[string]json.RawMessage
			if fr.ID < 1 || fr.Tool == "" || len(fr.Tool) > maxToolName || json.Unmarshal(fr.Arguments, &obj) != nil || obj == nil {
				t.Fatalf("accepted a bad call %+v", fr)
			}
		case Done:
			if fr.OK && !json.Valid(fr.Value) {
				t.Fatalf("accepted an invalid value %q", fr.Value)
			}
			if !fr.OK && (fr.Error == "" || fr.Line < 0) {
				t.Fatalf("accepted a bad failure %+v", fr)
			}
		default:
			t.Fatalf("unknown frame %T", fr)
		}
	})
}
