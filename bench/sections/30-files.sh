#!/usr/bin/env bash
# File tools (issues 3, 10, 12): read_file of a 1 GiB file against sha256sum
# (wall time, sidecar peak RSS), edit_file on a 10 MiB file, edit_file and
# apply_patch on 300,000 identical lines with a 3,000-line oldText (time, and
# how fast a cancel is answered), and write_file + read_file round trips
# against the reference MCP filesystem server
# (@modelcontextprotocol/server-filesystem from npm, installed into
# $BENCH_CACHE), both driven by the same client. The 1 GiB file lives in
# $BENCH_CACHE and is deleted afterwards.
set -euo pipefail
echo "== files: read_file, edit_file, repeated lines and cancel, write/read round trips"
npm_dir="$BENCH_CACHE/npm"
server="$npm_dir/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
if [ ! -f "$server" ] && command -v npm >/dev/null; then
  npm install --prefix "$npm_dir" --no-audit --no-fund --loglevel=error @modelcontextprotocol/server-filesystem >/dev/null 2>&1 ||
    echo "(npm install of @modelcontextprotocol/server-filesystem failed; the reference column stays empty)"
fi
mcp=""
if [ -f "$server" ] && command -v node >/dev/null; then
  mcp="$server"
fi
go build -o "$BENCH_CACHE/files-bench" ./bench/files
"$BENCH_CACHE/files-bench" -bin "$BIN" -cache "$BENCH_CACHE" -mcp "$mcp"
