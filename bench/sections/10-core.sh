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
npmdir="$BENCH_CACHE/npm"
ref="$npmdir/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
if [ ! -f "$ref" ]; then
  npm install --silent --no-audit --no-fund --prefix "$npmdir" @modelcontextprotocol/server-filesystem >/dev/null 2>&1 || true
fi
mcp=""
[ -f "$ref" ] && mcp="node $ref"
"$bindir/core" -bin "$BIN" -floor "$bindir/floor" -echo "$bindir/echo" -mcp "$mcp"
