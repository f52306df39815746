package benchkit

import (
	"strings"
	"testing"
	"time"
)

func TestCall(t *testing.T) {
	p, err := Start(child("serve"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, tc := range []struct {
		method string
		params any
		want   string
	}{
		{"system.ping", nil, `{"method":"system.ping","params":null}`},
		{"tool.list", map[string]any{"view": "model"}, `{"method":"tool.list","params":{"view":"model"}}`},
		{"tools/call", map[string]any{"name": `"id":1`}, `{"method":"tools/call","params":{"name":"\"id\":1"}}`},
	} {
		got, err := p.Call(tc.method, tc.params)
		if err != nil {
			t.Fatalf("Call(%s): %v", tc.method, err)
		}
		if string(got) != tc.want {
			t.Errorf("Call(%s) = %s, want %s", tc.method, got, tc.want)
		}
	}
	if _, err := p.Call("fail", nil); err == nil || !strings.Contains(err.Error(), "failed") {
		t.Errorf("Call(fail) error = %v, want the error reply", err)
	}
	if err := p.Notify("notifications/initialized", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Call("after.notify", nil); err != nil {
		t.Errorf("a call after a notification: %v", err)
	}
}

func TestRoundTripsAndPipelined(t *testing.T) {
	p, err := Start(child("serve"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	rtt, err := p.RoundTrips(20, "system.ping", nil)
	if err != nil || len(rtt) != 20 {
		t.Fatalf("RoundTrips = %d samples, %v; want 20", len(rtt), err)
	}
	rate, err := p.Pipelined(2000, 64, "system.ping", nil)
	if err != nil || rate <= 0 {
		t.Fatalf("Pipelined = %v, %v", rate, err)
	}
	// The window drained exactly: the next call gets its own reply.
	if _, err := p.Call("after.pipelined", nil); err != nil {
		t.Fatal(err)
	}
}

func TestPipelinedChildGone(t *testing.T) {
	p, err := Start(child("silent"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, err := p.Pipelined(1000, 4, "system.ping", nil); err == nil {
		t.Error("Pipelined against a child that never answers: no error")
	}
}

func TestCloseKillsStuckChild(t *testing.T) {
	defer func(d time.Duration) { closeWait = d }(closeWait)
	closeWait = 100 * time.Millisecond
	p, err := Start(child("stuck"))
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	if err := p.Close(); err == nil {
		t.Error("Close of a stuck child: no error, want the kill")
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("Close took %v", d)
	}
}
