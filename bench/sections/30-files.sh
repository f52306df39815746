#!/usr/bin/env bash
# File tools (issues 3, 10, 12): read_file of a 1 GiB file against sha256sum
# (wall time, sidecar peak RSS), edit_file on a 10 MiB file, edit_file and
# apply_patch on 300,000 identical lines with a 3,000-line oldText (time, and
# how fast a cancel is answered), and write_file + read_file round trips
# against the reference MCP filesystem server
# (@modelcontextprotocol/server-filesystem from npm, installed into
# $BENCH_CACHE), both driven by the same client; and write_file 4 KiB and
# edit_file 1 MiB with checkpoints on vs off, interleaved (issue 27). The 1 GiB file lives in
# $BENCH_CACHE and is deleted afterwards.
set -euo pipefail
echo "== files: read_file, edit_file, repeated lines and cancel, write/read round trips"
source bench/reference.sh
mcp="$(reference_filesystem)"
go build -o "$BENCH_CACHE/files-bench" ./bench/files
"$BENCH_CACHE/files-bench" -bin "$BIN" -cache "$BENCH_CACHE" -mcp "$mcp"
