#!/usr/bin/env bash
# tool_search: index build, incremental add/remove and search latency with
# 1,000 and 10,000 deferred host tools, in process and as tool.invoke round
# trips through $BIN, beside the independent plain-Go BM25 (the reference);
# and the ready-marker time with 1,000 host tools registered right after
# boot. Targets (1,000 tools): build ≤ 200 ms off the boot path, p50 ≤ 1 ms.
set -euo pipefail
echo "== 60-search: tool_search and host tools =="
go run ./bench/search -bin "$BIN"
