package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
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
// Two paths answer otherwise, for scripts that use the server as the
// forward proxy (HTTP_PROXY=http://$WEB_HOSTPORT) of a public-looking URL,
// the one way the real binary reaches a loopback server:
//
//	/status/NNN[?loc=L]   status NNN, with Location L when given
//	/binary               a PDF (application/pdf)
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
		ws.srv = httptest.NewUnstartedServer(http.HandlerFunc(serveScriptPage))
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

// serveScriptPage answers the webserver's paths (see above).
func serveScriptPage(w http.ResponseWriter, r *http.Request) {
	if code, ok := strings.CutPrefix(r.URL.Path, "/status/"); ok {
		if loc := r.URL.Query().Get("loc"); loc != "" {
			w.Header().Set("Location", loc)
		}
		n, err := strconv.Atoi(code)
		if err != nil || n < 100 || n > 999 {
			n = http.StatusBadRequest
		}
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(n)
		fmt.Fprint(w, "status body")
		return
	}
	if r.URL.Path == "/binary" {
		w.Header().Set("Content-Type", "application/pdf")
		fmt.Fprint(w, "%PDF-1.7\n")
		return
	}
	w.Header().Set("Content-Type", "text/plain")
	fmt.Fprint(w, "secret")
}
