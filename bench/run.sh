#!/usr/bin/env bash
# make bench: every figure of the issues' performance sections, printed side
# by side with its reference command in one run. Each area has one section
# script in bench/sections (run in name order); Go programs that measure live
# under bench/<area>/. Timings are figures for the report, never assertions.
set -euo pipefail
cd "$(dirname "$0")/.."
export BIN="${BIN:-$PWD/bin/steerable-sidecar}"
export BENCH_CACHE="${BENCH_CACHE:-$PWD/bench/.cache}"
mkdir -p "$BENCH_CACHE"
echo "steerable-sidecar benchmark report — $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $("$BIN" version)"
shopt -s nullglob
for section in bench/sections/*.sh; do
  echo
  bash "$section"
done
