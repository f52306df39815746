#!/usr/bin/env bash
# run_code (issue 13): per backend, the overhead of a run_code call of
# `return 1` over a bare `python3 -I -S -c pass` of the same interpreter
# (targets: landlock ≤ 10 ms, bwrap ≤ 14 ms), and the cost of one nested
# tools.read_file over the bridge (programs of 30 reads of a 4 KiB file;
# target ≤ 150 µs) beside the same reads as tool.invoke round trips from a
# host. Prints MISS (with the reason) where a figure cannot be had; never
# fails the build.
set -uo pipefail
echo "## run_code (bench/sections/45-runcode.sh)"
go run ./bench/runcode -bin "$BIN" -runs "${RUNCODE_RUNS:-50}" || echo "bench/runcode failed: MISS"
