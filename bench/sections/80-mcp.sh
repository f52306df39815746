#!/usr/bin/env bash
# MCP server mode (issue 15): `steerable-sidecar mcp` against the reference MCP
# filesystem server (@modelcontextprotocol/server-filesystem from npm,
# installed into $BENCH_CACHE), both driven by the same client: spawn →
# initialize reply, idle RSS, the bytes of a read_file of 4 KiB and 100 KB
# of source as sent and as shown to the model (its text blocks), read_file
# of 4 KiB sequential and 64 in flight, in 3 interleaved rounds; then the
# binary's size and serve's start-up (BEFORE_BIN, if set, is an older
# binary measured alike, as a column of its own).
set -euo pipefail
echo "== mcp: server mode against server-filesystem"
source bench/reference.sh
ref="$(reference_filesystem)"
go build -o "$BENCH_CACHE/mcp-bench" ./bench/mcp
"$BENCH_CACHE/mcp-bench" -bin "$BIN" -mcp "$ref" -before "${BEFORE_BIN:-}" -rounds 3
