package main

// Commands for a host that stops reading the sidecar's stdout:
//
//	sidecar start-stalled ARGS  start with stdout unread until `sidecar read-stdout`
//	                            (ready is known from the stderr marker)
//	flood N TOOL 'ARGS'         write N tool.invoke frames (ids flood-1…) from a
//	                            goroutine, which blocks when the sidecar stops reading
//	flood-wait                  wait until every flood frame is written and answered
//	                            (with a result or -32003 busy); print the counts
//	rss-below MB                the sidecar's peak resident memory (VmHWM) is below MB MiB

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"steerable.dev/sidecar/internal/scripttest"
)

func (s *session) startStalled(ts *testscript.TestScript, args []string) {
	gate := make(chan struct{})
	var once sync.Once
	s.stdoutGate = gate
	s.openStdout = func() { once.Do(func() { close(gate) }) }
	from := s.spawn(ts, ts.Getenv("WORK"), args, stderrRead)
	// Deferred after spawn so it runs before spawn's cleanup (LIFO), which
	// waits for the stdout reader: else the reader never returns.
	ts.Defer(s.openStdout)
	s.waitStderr(ts, from, "__SIDECAR_READY__:")
}

// flood is a writer of many frames at once.
type flood struct {
	n    int
	done chan error
}

func cmdFlood(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: flood N TOOL 'ARGS'")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	s := sess(ts)
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":"flood-%d","method":"tool.invoke","params":{"name":%q,"arguments":%s}}`+"\n", i, args[1], args[2])
	}
	f := &flood{n: n, done: make(chan error, 1)}
	s.flood = f
	stdin := s.Stdin
	go func() {
		_, err := io.WriteString(stdin, b.String())
		f.done <- err
	}()
}

func cmdFloodWait(ts *testscript.TestScript, neg bool, args []string) {
	s := sess(ts)
	if s.flood == nil {
		ts.Fatalf("no flood")
	}
	select {
	case err := <-s.flood.done:
		ts.Check(err)
	case <-time.After(2 * time.Minute):
		ts.Fatalf("the flood's frames were not all read within 2 minutes")
	}
	ok, busy := 0, 0
	for i := 1; i <= s.flood.n; i++ {
		id := strconv.Quote(fmt.Sprintf("flood-%d", i))
		f := s.NextWithin(ts, time.Minute, scripttest.ReplyTo(id))
		switch {
		case f == nil:
			ts.Fatalf("flood frame %s not answered (%d answered)", id, ok+busy)
		case f["result"] != nil:
			ok++
		case strings.Contains(string(f["error"]), "-32003"):
			busy++
		default:
			ts.Fatalf("flood frame %s: %s", id, f["error"])
		}
	}
	fmt.Fprintf(ts.Stdout(), "%d answered: %d results, %d busy\n", ok+busy, ok, busy)
}
