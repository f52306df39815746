#!/usr/bin/env bash
# Plugins (issue 14): start → registered for the Go MCP test server and for
# @modelcontextprotocol/server-everything (in process under none and bwrap,
# and the sidecar's spawn → ready with the plugin against without it); the
# per-call overhead of a plugin tool through the sidecar against the same
# server called directly with the Go SDK client (target ≤ 1.2× + 100 µs);
# a server listing 500 tools (target ≤ 100 ms), and the registration alone
# (go test -bench). Prints MISS where a figure cannot be had. BASE_BIN=another
# build measures it beside $BIN in the same interleaved rounds (before/after).
set -uo pipefail
echo "== 90-plugins: MCP servers as plugins"
npm_dir="$PWD/bench/.cache/plugins"
everything="$npm_dir/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
if [ ! -f "$everything" ] && command -v npm >/dev/null; then
  npm install --silent --no-audit --no-fund --prefix "$npm_dir" @modelcontextprotocol/server-everything@2026.8.31 >/dev/null 2>&1 ||
    echo "(npm install of server-everything failed; its rows are MISS)"
fi
[ -f "$everything" ] && command -v node >/dev/null || everything=""
server="$BENCH_CACHE/mcp-test-server"
go build -o "$server" ./bench/plugins/testserver || { echo "building the test server failed: MISS"; exit 0; }
go run ./bench/plugins -bin "$BIN" -server "$server" -everything "$everything" || echo "bench/plugins failed: MISS"
echo "in process (go test -bench ./internal/plugins): the registration of 500 tools alone, the compile of their schemas after it"
echo "(in the background), and a whole start of the 500-tool server (Load500, tool_search observing); one echo call through the"
echo "dispatch pipeline against the same call with the SDK client, interleaved, no host pipe (the sidecar's own code per call)"
go test -run '^$' -bench 'Register|Compile|Load' -benchtime 20x -count 3 ./internal/plugins | grep -E '^Benchmark' || echo "MISS"
go test -run '^$' -bench 'CallInterleaved' -benchtime 20x -count 3 ./internal/plugins | grep -E '^Benchmark' || echo "MISS"
