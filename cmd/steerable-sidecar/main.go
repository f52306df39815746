// Command steerable-sidecar runs the tools an LLM agent calls, for a host
// that drives it over newline-delimited JSON-RPC 2.0 on stdio. See README.md
// and `steerable-sidecar --help`.
package main

import "os"

// version and commit are set at build time with -ldflags "-X
// main.version=… -X main.commit=…" (make build, make release).
var (
	version = "0.1.0-dev"
	commit  = ""
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
