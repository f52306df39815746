package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

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

// versionCmd prints the version, the protocol version, the Go version,
// the target and the commit it was built from.
func versionCmd(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("version", "version", stdout, stderr)
	if code, stop := parseFlags(fs, args); stop {
		return code
	}
	fmt.Fprintf(stdout, "steerable-sidecar %s (protocol %s, %s %s/%s, commit %s)\n",
		version, protocol.ProtocolVersion, runtime.Version(), runtime.GOOS, runtime.GOARCH, buildCommit())
	return exitOK
}

// buildCommit is the commit the binary was built from: main.commit when
// the build stamped it (make build, make release, the Dockerfile), else
// the VCS stamp the go command records in a checkout ("-dirty" for
// uncommitted changes), else "unknown".
func buildCommit() string {
	if commit != "" {
		return commit
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	switch {
	case rev == "":
		return "unknown"
	case dirty:
		return rev + "-dirty"
	}
	return rev
}
