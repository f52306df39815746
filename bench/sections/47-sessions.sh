#!/usr/bin/env bash
# Shell sessions (issue 18): per backend, opening a bash_session that runs
# `true` against a `bash` call of `true` under the same backend (target
# ≤ 10 ms over it), a write_stdin round trip of `echo x` with yieldMs 50
# (target ≤ 55 ms), and 50 MB printed in a session (time, peak RSS). Prints
# MISS where a backend cannot run; never fails the build.
set -uo pipefail
echo "## shell sessions (bench/sections/47-sessions.sh)"
go run ./bench/sessions -bin "$BIN" -runs 30 || echo "bench/sessions failed: MISS"
