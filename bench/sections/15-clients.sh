#!/usr/bin/env bash
# Host clients (issue 29): ready-to-first-result — spawn → lifecycle.ready,
# then ready → the first read_file result — and a warm read_file round trip,
# through the TypeScript client and the Python client, each beside the raw
# wire driven from the same runtime, runs interleaved (target: the client
# adds < 1 ms). Prints MISS where a runtime is missing; never fails the build.
set -uo pipefail
echo "## host clients (bench/sections/15-clients.sh)"
runs="${CLIENT_RUNS:-20}"
if command -v node >/dev/null && command -v npm >/dev/null; then
  make --no-print-directory clients >/dev/null &&
    node bench/clients/first_result.mjs "$BIN" "$runs" || echo "bench/clients/first_result.mjs failed: MISS"
else
  echo "node or npm is not installed: the TypeScript client's figures: MISS"
fi
if command -v python3 >/dev/null; then
  python3 bench/clients/first_result.py "$BIN" "$runs" || echo "bench/clients/first_result.py failed: MISS"
else
  echo "python3 is not installed: the Python client's figures: MISS"
fi
