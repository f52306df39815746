package main

import (
	"fmt"
	"io"
	"runtime"

	sidecar "steerable.dev/sidecar"
	"steerable.dev/sidecar/protocol"
)

// contractCmd prints tool_contract.json.
func contractCmd(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("contract", "contract", stdout, stderr)
	if code, stop := parseFlags(fs, args); stop {
		return code
	}
	stdout.Write(sidecar.Contract)
	return exitOK
}

// versionCmd prints the version.
func versionCmd(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("version", "version", stdout, stderr)
	if code, stop := parseFlags(fs, args); stop {
		return code
	}
	fmt.Fprintf(stdout, "steerable-sidecar %s (protocol %s, %s %s/%s)\n",
		version, protocol.ProtocolVersion, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return exitOK
}
