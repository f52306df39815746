package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"

	"github.com/rogpeppe/go-internal/testscript"
)

// The web scripts' loopback server, to show that the real binary refuses
// loopback before any connection:
//
//	webserver start   serve "secret" on 127.0.0.1; sets WEB_HOSTPORT and WEB_PORT
//	webserver conns   print "conns N", the connections accepted so far
//
// Registered here rather than in session_test.go's table to keep the web
// scripts' helper in one file.
func init() { sessionCmds["webserver"] = cmdWebserver }

// webservers maps each script to its server (scripts run in parallel).
var webservers sync.Map // *testscript.TestScript → *webserver

type webserver struct {
	srv   *httptest.Server
	conns atomic.Int64
}

func cmdWebserver(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: webserver start|conns")
	}
	switch args[0] {
	case "start":
		ws := &webserver{}
		ws.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "secret")
		}))
		ws.srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
			if st == http.StateNew {
				ws.conns.Add(1)
			}
		}
		ws.srv.Start()
		webservers.Store(ts, ws)
		ts.Defer(func() { ws.srv.Close(); webservers.Delete(ts) })
		host, port, _ := net.SplitHostPort(ws.srv.Listener.Addr().String())
		ts.Setenv("WEB_HOSTPORT", net.JoinHostPort(host, port))
		ts.Setenv("WEB_PORT", port)
	case "conns":
		v, ok := webservers.Load(ts)
		if !ok {
			ts.Fatalf("webserver not started")
		}
		fmt.Fprintf(ts.Stdout(), "conns %d\n", v.(*webserver).conns.Load())
	default:
		ts.Fatalf("unknown webserver subcommand %q", args[0])
	}
}
