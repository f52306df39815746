package protocol

import (
	"encoding/json"
	"testing"
)

// FuzzAppendJSONString: byte for byte what encoding/json writes.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", `quote " and \ backslash`, "<a href='x'>&amp;</a>", "tab\tnl\ncr\r\x00\x1f\x7f",
		"\u2028\u2029", "ünïcødé 日本", "bad \xff\xfe utf8", "\xed\xa0\x80 surrogate",
		// longer than a word, each kind of byte at each offset of one
		"a line of text, 64 bytes long, as source files often have....\n", "1234567<1234567>123456&12345\"1234\\123\x1f12\x7f1\xc3\xa9"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := AppendJSONString(nil, s); string(got) != string(want) {
			t.Fatalf("AppendJSONString(%q) = %s, encoding/json writes %s", s, got, want)
		}
	})
}

func TestHealthAppendsWhatEncodingJSONWrites(t *testing.T) {
	for _, h := range []Health{
		{},
		{Status: StatusOK, Version: "0.1.0", ProtocolVersion: ProtocolVersion, UptimeMs: 12, PID: 4242, GoVersion: "go1.26.8",
			Platform: "linux/amd64", LoadedTools: 9, DroppedLogLines: 1 << 40,
			Checks: Checks{"web": {Status: CheckError, Message: "bad <value> & \"more\""}, "config": {Status: CheckOK, Message: "valid"}, "ä": {}}},
		{Status: "\xff", UptimeMs: -1, Checks: Checks{}},
	} {
		want, err := json.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := h.AppendJSON(nil); string(got) != string(want) {
			t.Errorf("AppendJSON = %s\nencoding/json %s", got, want)
		}
	}
}

func TestToolResultAppendsWhatEncodingJSONWrites(t *testing.T) {
	r := ToolResult{Success: true, Message: "<ok>", Data: map[string]any{"b": 1, "a": []int{2}},
		Extra: map[string]json.RawMessage{"future": json.RawMessage(`{"x": 1}`)}}
	want, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.AppendJSON([]byte("prefix:"))
	if err != nil || string(got) != "prefix:"+string(want) {
		t.Errorf("AppendJSON = %s, %v; encoding/json writes %s", got, err, want)
	}
}

func TestLifecycleReadyAppendsWhatEncodingJSONWrites(t *testing.T) {
	p := LifecycleReadyParams{Version: "0.1.0-<dev>", ProtocolVersion: ProtocolVersion, PID: 4242, ListenInfo: ListenInfo{Transport: "stdio"}}
	want, _ := json.Marshal(p)
	if got, _ := p.AppendJSON(nil); string(got) != string(want) {
		t.Errorf("AppendJSON = %s, encoding/json writes %s", got, want)
	}
}
