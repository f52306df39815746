#!/usr/bin/env bash
# MCP server mode (issue 15): `steerable-sidecar mcp` against the reference MCP
# filesystem server (@modelcontextprotocol/server-filesystem from npm,
# installed into $BENCH_CACHE), both driven by the same client: spawn →
# initialize reply, idle RSS, read_file of 4 KiB sequential and 64 in
# flight; then the binary's size and serve's start-up (BEFORE_BIN, if set,
# is an older binary to compare them with).
set -euo pipefail
echo "== mcp: server mode against server-filesystem"
npm_dir="$BENCH_CACHE/npm"
server="$npm_dir/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
if [ ! -f "$server" ] && command -v npm >/dev/null; then
  npm install --prefix "$npm_dir" --no-audit --no-fund --loglevel=error @modelcontextprotocol/server-filesystem >/dev/null 2>&1 ||
    echo "(npm install of @modelcontextprotocol/server-filesystem failed; the reference column stays empty)"
fi
ref=""
if [ -f "$server" ] && command -v node >/dev/null; then
  ref="$server"
fi
go build -o "$BENCH_CACHE/mcp-bench" ./bench/mcp
"$BENCH_CACHE/mcp-bench" -bin "$BIN" -mcp "$ref" -before "${BEFORE_BIN:-}"
