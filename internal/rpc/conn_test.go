package rpc

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

// serveRaw runs a server on the given input and returns everything it wrote
// once it stops (the input ends with EOF).
func serveRaw(t *testing.T, framing string, maxFrame int, input string) string {
	t.Helper()
	reg := tools.NewRegistry()
	srv, err := NewServer(Options{Version: "t", Framing: framing, MaxFrameBytes: maxFrame, MaxInflight: 4, ShutdownGrace: time.Second, Log: zerolog.Nop()},
		Services{Registry: reg, Dispatcher: tools.NewDispatcher(reg, nil, zerolog.Nop())}, NewPeer(zerolog.Nop()))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if reason := srv.Serve(strings.NewReader(input), &out); reason != ReasonEOF {
		t.Errorf("reason = %s", reason)
	}
	return out.String()
}

func lsp(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }

func TestContentLengthFraming(t *testing.T) {
	input := lsp(`{"jsonrpc":"2.0","id":1,"method":"system.ping"}`) +
		"\r\n" + // stray blank line between frames
		"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n" + lsp(`{"jsonrpc":"2.0","id":2,"method":"nope"}`) +
		lsp(`not json`) +
		lsp(`{"jsonrpc":"2.0","id":3,"method":"system.ping","params":{"pad":"`+strings.Repeat("x", 300)+`"}}`) +
		"X-Other: 1\r\n\r\n" + // a header block without Content-Length
		lsp(`{"jsonrpc":"2.0","id":4,"method":"system.ping"}`)
	out := serveRaw(t, FramingContentLength, 200, input)
	r := bufio.NewReader(strings.NewReader(out))
	var bodies []string
	for {
		var n int
		if _, err := fmt.Fscanf(r, "Content-Length: %d\r\n\r\n", &n); err != nil {
			break
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(r, b); err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, string(b))
	}
	want := []string{`"method":"lifecycle.ready"`, `"id":1,"result":{"status":"`, `"id":2,"error":{"code":-32601`,
		`"id":null,"error":{"code":-32700`, `"id":3,"error":{"code":-32600,"message":"frame of 367 bytes exceeds the 200-byte frame limit (STEERABLE_MAX_FRAME_BYTES)`,
		`"code":-32600,"message":"missing or invalid Content-Length header"`, `"id":4,"result"`, `"method":"lifecycle.shutdown"`}
	checkFrames(t, bodies, want)
}

// checkFrames checks that the first and last frames are the lifecycle
// notifications and that every other expected frame is there, in any order
// (replies come from their own goroutines).
func checkFrames(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d frames, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	if !strings.Contains(got[0], want[0]) || !strings.Contains(got[len(got)-1], want[len(want)-1]) {
		t.Errorf("first/last frames = %s / %s", got[0], got[len(got)-1])
	}
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || strings.Contains(g, w)
		}
		if !found {
			t.Errorf("no frame contains %s:\n%s", w, strings.Join(got, "\n"))
		}
	}
}

func TestNewlineFramingEdgeCases(t *testing.T) {
	input := strings.Repeat("x", 300) + "\n" + // oversized garbage line
		"\r\n" +
		`{"jsonrpc":"2.0","id":1,"method":"system.ping"}` + "\r\n" + // CRLF tolerated
		`{"jsonrpc":"2.0","id":2,"method":"system.ping"}` // last line without newline
	out := serveRaw(t, FramingNewline, 200, input)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	want := []string{`"lifecycle.ready"`, `"id":null,"error":{"code":-32600,"message":"frame of 301 bytes exceeds the 200-byte frame limit`, `"id":1,"result"`, `"id":2,"result"`, `"lifecycle.shutdown"`}
	checkFrames(t, lines, want)
}

func TestToWireKeepsCodesThroughWrapping(t *testing.T) {
	err := fmt.Errorf("outer: %w", fmt.Errorf("inner: %w", protocol.Errorf(protocol.CodePluginState, "plugin %q is disabled", "p").WithData("plugin", "p")))
	we := toWire(err)
	if we.Code != protocol.CodePluginState || we.Message != `plugin "p" is disabled` {
		t.Errorf("wire = %+v", we)
	}
	if got, _ := json.Marshal(we.Data); string(got) != `{"kind":"plugin_state","plugin":"p"}` {
		t.Errorf("data = %s", got)
	}
	if we := toWire(fmt.Errorf("bug")); we.Code != protocol.CodeInternal {
		t.Errorf("plain error = %+v", we)
	}
}
