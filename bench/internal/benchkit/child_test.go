package benchkit

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// The tests drive the test binary itself as the child: with BENCHKIT_CHILD
// set, TestMain runs one of the servers below instead of the tests.
func TestMain(m *testing.M) {
	switch os.Getenv("BENCHKIT_CHILD") {
	case "":
		os.Exit(m.Run())
	case "serve":
		serve()
	case "ready":
		fmt.Fprintln(os.Stderr, "starting")
		fmt.Fprintln(os.Stderr, ReadyPrefix+"{}")
		// More than a pipe holds: the child blocks unless stderr is drained.
		fmt.Fprintln(os.Stderr, strings.Repeat("log line\n", 64<<10))
		fmt.Println(`{"jsonrpc":"2.0","method":"lifecycle.ready","params":{}}`)
		serve()
	case "silent":
		os.Stdin.Read(make([]byte, 1)) // exits at EOF without the ready line
	case "stuck":
		time.Sleep(time.Minute) // ignores its stdin closing
	case "cancellable":
		serveCancellable()
	}
	os.Exit(0)
}

// child is a command that runs the test binary as the named server.
func child(mode string) *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	// atexit_sleep_ms: under -race a child would linger a second at exit.
	cmd.Env = append(os.Environ(), "BENCHKIT_CHILD="+mode, "GORACE=atexit_sleep_ms=0")
	return cmd
}

// serve answers every request the way the reference servers can: before
// the reply, a notification that names the id and a stray line; the reply
// itself with "id" last. A request for method "fail" gets an error reply;
// any other gets {"method":M,"params":P} back.
func serve() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		var req struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || req.ID == nil {
			continue
		}
		fmt.Fprintf(out, `{"jsonrpc":"2.0","method":"progress","params":{"id":%d}}`+"\n", *req.ID)
		fmt.Fprintln(out, "stray output")
		if req.Method == "fail" {
			fmt.Fprintf(out, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"failed"},"id":%d}`+"\n", *req.ID)
		} else {
			if req.Params == nil {
				req.Params = json.RawMessage("null")
			}
			fmt.Fprintf(out, `{"jsonrpc":"2.0","result":{"method":%q,"params":%s},"id":%d}`+"\n", req.Method, req.Params, *req.ID)
		}
		out.Flush()
	}
}
