#!/usr/bin/env bash
# Release figures (issue 16): the size of the stripped, static binary of each
# of the six release targets, built as make release builds them. Target:
# at most 20 MB each.
set -euo pipefail
out="$BENCH_CACHE/release"
mkdir -p "$out"
printf '%-44s %10s %8s\n' "binary size (stripped, CGO_ENABLED=0)" "MB" "target"
for t in linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64; do
  os=${t%/*} arch=${t#*/}
  bin="$out/steerable-sidecar-$os-$arch"
  GOOS=$os GOARCH=$arch CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$bin" ./cmd/steerable-sidecar
  bytes=$(wc -c <"$bin")
  verdict=met; [ "$bytes" -le $((20 * 1000 * 1000)) ] || verdict=MISSED
  printf '%-44s %10.1f %8s\n' "$t" "$(awk -v b="$bytes" 'BEGIN { print b / 1e6 }')" "$verdict (≤ 20)"
done
