package benchkit

import (
	"testing"
	"time"
)

func TestStartReady(t *testing.T) {
	p, d, err := StartReady(child("ready"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if d <= 0 {
		t.Errorf("spawn to ready = %v", d)
	}
	if err := p.AwaitNotification("lifecycle.ready"); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Call("system.ping", nil); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

func TestStartReadyNoLine(t *testing.T) {
	defer func(d time.Duration) { readyWait = d }(readyWait)
	readyWait = 200 * time.Millisecond
	for _, mode := range []string{"serve", "stuck"} { // waits on stdin; ignores it
		if _, _, err := StartReady(child(mode)); err == nil {
			t.Errorf("%s: a child without the ready line: no error", mode)
		}
	}
}
