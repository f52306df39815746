package benchkit

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"
)

// serveCancellable holds each request until a $/cancelRequest names it,
// then answers it with the cancellation error, as the sidecar does.
func serveCancellable() {
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		var f struct {
			Method string `json:"method"`
			Params struct {
				ID int `json:"id"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &f) == nil && f.Method == "$/cancelRequest" {
			fmt.Printf(`{"jsonrpc":"2.0","error":{"code":-32800,"message":"request cancelled"},"id":%d}`+"\n", f.Params.ID)
		}
	}
}

func TestCallCancel(t *testing.T) {
	p, err := Start(child("cancellable"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c, err := p.CallCancel("slow", nil, 20*time.Millisecond, 10*time.Second)
	if err != nil || c.Latency <= 0 || c.Reply != nil || c.Total < 20*time.Millisecond {
		t.Errorf("cancelled call = %+v, %v", c, err)
	}

	q, err := Start(child("serve"))
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	c, err = q.CallCancel("fast", map[string]any{"x": 1}, 10*time.Second, time.Second)
	if err != nil || c.Latency != 0 || c.Reply == nil {
		t.Errorf("call answered before its cancel = %+v, %v", c, err)
	}
}
