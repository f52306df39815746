package plugins

import (
	"context"
	"errors"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// writes records each Write as one string.
type writes struct{ got []string }

func (w *writes) Write(p []byte) (int, error) { w.got = append(w.got, string(p)); return len(p), nil }
func (w *writes) Close() error                { return nil }

func connOver(t *testing.T, stdout string) (*stdioConn, *writes) {
	t.Helper()
	w := &writes{}
	return newStdioConn(newFrameFilter(strings.NewReader(stdout), 1<<20), io.NopCloser(nil), stallWriter{w}), w
}

func TestConnReadsEachMessageOnce(t *testing.T) {
	c, _ := connOver(t, "banner on stdout\n"+
		`{"jsonrpc":"2.0","id":1,"result":{"a":1}}`+"\n"+
		`[{"jsonrpc":"2.0","id":2,"result":{}},{"jsonrpc":"2.0","method":"notifications/progress","params":{}}]`+"\r\n"+
		`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
	var got []string
	for {
		msg, err := c.Read(context.Background())
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch m := msg.(type) {
		case *jsonrpc.Response:
			got = append(got, "reply "+string(m.Result))
		case *jsonrpc.Request:
			got = append(got, "note "+m.Method)
		}
	}
	want := []string{`reply {"a":1}`, "reply {}", "note notifications/progress", "note notifications/tools/list_changed"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}

// JSON that is not JSON-RPC ends the connection with the reason (the SDK's
// transport did the same), where a line that is not JSON is only noise.
func TestConnRefusesJSONThatIsNotJSONRPC(t *testing.T) {
	for _, line := range []string{`{"hello":"world"}`, `[]`, `[{"jsonrpc":"1.0","id":1,"result":1}]`} {
		c, _ := connOver(t, line+"\n")
		_, err := c.Read(context.Background())
		if err == nil || errors.Is(err, io.EOF) || !strings.Contains(err.Error(), "the server wrote") || !strings.Contains(err.Error(), line) {
			t.Errorf("%s: read %v, want an error naming the problem and the line", line, err)
		}
		if c.frames.Err() != err {
			t.Errorf("%s: the filter's Err is %v, not the reason the connection broke", line, c.frames.Err())
		}
	}
}

func TestConnWritesOneLinePerMessage(t *testing.T) {
	c, w := connOver(t, "")
	for i := range 3 {
		id, err := jsonrpc.MakeID(float64(i))
		if err != nil {
			t.Fatal(err)
		}
		req := &jsonrpc.Request{ID: id, Method: "tools/call", Params: []byte(`{"name":"echo"}`)}
		if err := c.Write(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	if len(w.got) != 3 {
		t.Fatalf("%d writes for 3 messages: %q", len(w.got), w.got)
	}
	for _, line := range w.got {
		if strings.Count(line, "\n") != 1 || !strings.HasSuffix(line, "\n") || !strings.Contains(line, `"method":"tools/call"`) {
			t.Errorf("not one whole line: %q", line)
		}
	}
}

// Close ends a Read blocked on a server that never writes.
func TestConnCloseEndsABlockedRead(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	c := newStdioConn(newFrameFilter(r, 1<<20), r, stallWriter{&writes{}})
	done := make(chan error, 1)
	go func() { _, err := c.Read(context.Background()); done <- err }()
	time.Sleep(20 * time.Millisecond)
	c.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Error("a read on a closed connection returned a message")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not end the blocked Read")
	}
}

// The connection counts each progress notification with a string token as
// it reads it, alone or in a batch, before the session sees it; a reply, a
// numeric token or another notification is not counted.
func TestConnCountsProgressAsRead(t *testing.T) {
	c, _ := connOver(t, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"steerable-1","progress":1}}`+"\n"+
		`[{"jsonrpc":"2.0","id":2,"result":{}},{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"steerable-2","progress":1}}]`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1}}`+"\n"+
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"progressToken":"steerable-3"}}`+"\n")
	var tokens []string
	c.progress = func(token string) { tokens = append(tokens, token) }
	for {
		if _, err := c.Read(context.Background()); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	if want := []string{"steerable-1", "steerable-2"}; !slices.Equal(tokens, want) {
		t.Fatalf("counted %q, want %q", tokens, want)
	}
}
