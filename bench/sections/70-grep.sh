#!/usr/bin/env bash
# grep and glob (issue 17): literal grep, regex grep, files-with-matches
# and glob '**/*.go' as tool.invoke round trips through $BIN, beside
# ripgrep (`rg`) doing the same work in the same run, on a generated tree
# (~20,000 files, ~300 MB, with a .gitignore; kept in $BENCH_CACHE) and on
# the Go module cache when present; the sidecar's peak RSS; how fast a
# cancelled grep returns. Targets: ≤ 1.5× rg wall time, ≤ 64 MiB peak RSS,
# cancellation within 50 ms.
set -euo pipefail
echo "== 70-grep: grep and glob beside ripgrep"
go build -o "$BENCH_CACHE/grep-bench" ./bench/grep
"$BENCH_CACHE/grep-bench" -bin "$BIN" -cache "$BENCH_CACHE"
