#!/usr/bin/env bash
# Core figures (issues 2, 10, 12): start-up, ping round trips and throughput,
# idle RSS, read_file of 4 KiB side by side, peak RSS under a request flood,
# replies with a stderr nobody reads; against a floor program, a bare echo
# loop (also answering with the sidecar's own Health bytes) and the
# reference MCP filesystem server from npm.
set -euo pipefail
bindir="$BENCH_CACHE/bin"
mkdir -p "$bindir"
go build -o "$bindir/core" ./bench/core
go build -o "$bindir/floor" ./bench/core/floor
go build -o "$bindir/echo" ./bench/core/echo
# The dependencies' floor: the floor program importing, for their init,
# every package outside this module that the sidecar links.
{
  echo 'package main'; echo 'import ('; echo '"os"'
  go list -deps ./cmd/steerable-sidecar | grep -v '^steerable\.dev/' | grep -v -e '^os$' -e 'internal' -e '^vendor/' -e '^runtime' -e '^unsafe$' -e '^C$' | sed 's/.*/_ "&"/'
  echo ')'; echo 'func main() { os.Stderr.WriteString("__SIDECAR_READY__:{}\n") }'
} > "$bindir/depsfloor.go"
go build -o "$bindir/depsfloor" "$bindir/depsfloor.go"
source bench/reference.sh
ref="$(reference_filesystem)"
mcp=""
[ -n "$ref" ] && mcp="node $ref"
"$bindir/core" -bin "$BIN" -floor "$bindir/floor" -deps-floor "$bindir/depsfloor" -echo "$bindir/echo" -mcp "$mcp"
