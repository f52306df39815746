#!/usr/bin/env bash
# bash and the sandbox: per-backend overhead of a `bash` call of `true`
# through the sidecar against bare `bash -c true` (median of 50), beside the
# reference sandboxes running the same command, and the capture path's
# throughput on 100 MB of output. BASE_BIN=another build runs beside it,
# interleaved call by call, plus read_file of 4 KiB in a home workspace
# (the deny check) for both (issue 23's before/after). Prints MISS (with
# the reason) where a figure or a reference cannot be had; never fails the
# build.
set -uo pipefail
echo "## bash and the sandbox (bench/sections/40-bash.sh)"
npm_dir="$BENCH_CACHE/npm"
bin_dir="$npm_dir/node_modules/.bin"
if [ ! -x "$bin_dir/codex" ] || [ ! -x "$bin_dir/srt" ]; then
  npm install --silent --prefix "$npm_dir" @openai/codex @anthropic-ai/sandbox-runtime >/dev/null 2>&1 ||
    echo "(npm install of the references failed; they are reported MISS)"
fi

refs=()
if [ -x "$bin_dir/codex" ]; then
  # `codex sandbox -- CMD` in current releases; older ones spelled it `codex debug landlock`.
  if "$bin_dir/codex" sandbox -- bash -c true >/dev/null 2>&1; then
    refs+=(-ref "codex sandbox -- bash -c true=$bin_dir/codex sandbox -- bash -c true")
  elif "$bin_dir/codex" debug landlock -- bash -c true >/dev/null 2>&1; then
    refs+=(-ref "codex debug landlock -- bash -c true=$bin_dir/codex debug landlock -- bash -c true")
  else
    refs+=(-ref "codex sandbox=MISS:codex $("$bin_dir/codex" --version 2>&1 | head -1) has no working sandbox subcommand here")
  fi
else
  refs+=(-ref "codex sandbox=MISS:@openai/codex is not installed")
fi
if [ -x "$bin_dir/srt" ] && command -v socat >/dev/null && command -v rg >/dev/null; then
  refs+=(-ref "srt bash -c true=$bin_dir/srt bash -c true")
else
  refs+=(-ref "srt bash -c true=MISS:needs @anthropic-ai/sandbox-runtime and the Debian packages socat and ripgrep")
fi
if command -v bwrap >/dev/null; then
  refs+=(-ref "bare bwrap wrap (no sidecar)=bwrap --ro-bind / / --dev /dev --proc /proc --unshare-pid --unshare-net --die-with-parent -- bash -c true")
fi
go run ./bench/bash -bin "$BIN" -runs 50 "${refs[@]}" || echo "bench/bash failed: MISS"
