#!/usr/bin/env bash
# web_fetch (issue 5): overhead against a plain http.Get of the same 1 MiB
# page, HTML-to-Markdown throughput, and peak memory at the byte-cap
# ceiling. Loopback only; the Go program is bench/web.
set -euo pipefail
echo "== web: web_fetch and HTML to Markdown"
go build -o "$BENCH_CACHE/bench-web" ./bench/web
"$BENCH_CACHE/bench-web"
