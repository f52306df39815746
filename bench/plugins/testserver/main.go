// Command testserver is the MCP test server of the plugin tests
// (internal/plugins/mcptest) as a program, for bench/plugins.
package main

import (
	"os"

	"steerable.dev/sidecar/internal/plugins/mcptest"
)

func main() { os.Exit(mcptest.Main(os.Args[1:])) }
