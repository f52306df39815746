package rpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"steerable.dev/sidecar/internal/schema"
	"steerable.dev/sidecar/internal/wire"
	"steerable.dev/sidecar/protocol"

	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/tools"
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

// FuzzStream feeds arbitrary input to a whole server: it must stop cleanly
// at EOF, and every line it writes must be a JSON-RPC 2.0 frame.
func FuzzStream(f *testing.F) {
	f.Add([]byte(strings.Join(frameSeeds, "\n")))
	f.Add([]byte("\n\n\r\n" + frameSeeds[0]))
	f.Add([]byte(strings.Repeat("x", 3000) + "\n" + frameSeeds[0]))
	f.Fuzz(func(t *testing.T, in []byte) {
		reg := tools.NewRegistry()
		srv, err := NewServer(Options{Version: "f", MaxFrameBytes: 2048, MaxInflight: 4, ShutdownGrace: time.Second, Log: zerolog.Nop()},
			Services{Registry: reg, Dispatcher: tools.NewDispatcher(reg, nil, zerolog.Nop())}, NewPeer(zerolog.Nop()))
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		done := make(chan struct{})
		go func() { srv.Serve(bytes.NewReader(in), &out); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("server did not stop on EOF for input %q", in)
		}
		sc := bufio.NewScanner(&out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil || string(m["jsonrpc"]) != `"2.0"` {
				t.Fatalf("non-frame output %q for input %q", sc.Text(), in)
			}
		}
	})
}

// FuzzParams decodes arbitrary params for every method: validation and
// decoding never panic and always end in a result or a *protocol.Error.
func FuzzParams(f *testing.F) {
	for _, p := range []string{`{}`, `null`, `[]`, `{"name":"x","arguments":{}}`, `{"view":"model","strategy":"minimal"}`,
		`{"name":"x","arguments":{"a":[1,{"b":null}]},"consentGranted":true,"id":"c"}`, `{"view":1}`, `"s"`, `{"arguments":null}`} {
		for m := range methodTable() {
			f.Add(m, []byte(p))
		}
	}
	reg := tools.NewRegistry()
	srv, err := NewServer(Options{Version: "f", MaxFrameBytes: 2048, MaxInflight: 4, Log: zerolog.Nop()},
		Services{Registry: reg, Dispatcher: tools.NewDispatcher(reg, nil, zerolog.Nop())}, NewPeer(zerolog.Nop()))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, name string, params []byte) {
		m, ok := srv.d.methods[name]
		if !ok || !json.Valid(params) {
			return
		}
		_, err := srv.d.call(context.Background(), wire.Message{Kind: wire.Request, Method: name, Params: orNil(params)}, m)
		if err != nil {
			if we := toWire(err); we.Code == -32603 {
				t.Fatalf("%s(%s): internal error %v", name, params, err)
			}
		}
	})
}

// FuzzToolInvokeFastPath: the fast path never accepts params that
// tool.invoke.params.json refuses, and decodes what it accepts exactly as
// encoding/json does.
func FuzzToolInvokeFastPath(f *testing.F) {
	for _, p := range []string{`{"name":"x","arguments":{}}`, `{"id":"c","name":"read_file","arguments":{"path":"a"},"consentGranted":true}`,
		`{"name":"","arguments":{}}`, `{"name":"x","arguments":[]}`, `{"name":"x","arguments":{},"extra":1}`, `{"name":"x","name":"y","arguments":{}}`,
		`{"NAME":"x","arguments":{}}`, `{"name":"\u0078","arguments":{"a":"\"}"}}`, `{"name":"x","arguments":{},"id":null}`, `{"name":"x\xff","arguments":{}}`,
		`{"name":"x","arguments":{},"consentGranted":"true"}`, ` { "name" : "x" , "arguments" : { } } `} {
		f.Add([]byte(p))
	}
	var schemas schema.Set
	sch, err := schemas.Get("tool.invoke.params.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		p, ok := fastToolInvoke(raw)
		if !ok {
			return
		}
		inst, err := schema.Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Fatalf("fast path accepted %s, the schema refuses it: %v", raw, err)
		}
		var want protocol.ToolInvokeParams
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, p); diff != "" {
			t.Fatalf("fast path decoded %s differently (-encoding/json +fast):\n%s", raw, diff)
		}
	})
}

// orNil maps an absent or null member to nil, as the wire does.
func orNil(raw []byte) json.RawMessage {
	if raw == nil || string(raw) == "null" {
		return nil
	}
	return raw
}
