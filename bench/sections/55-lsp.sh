#!/usr/bin/env bash
# Code intelligence (issue 28): edit_file with diagnostics from a warm gopls against
# the same edit followed by `go vet` through bash, the lsp definition
# round trip, and the language servers' memory. Language servers come from
# PATH, gopls from the Go bin directory and pyright and
# typescript-language-server from .ci/lsp (npm ci --prefix .ci/lsp). Prints
# MISS when gopls is absent; never fails the build.
set -uo pipefail
echo "## code intelligence (bench/sections/55-lsp.sh)"
lsp_path="$(go env GOPATH)/bin:${LSP_NODE_MODULES:-$PWD/.ci/lsp/node_modules}/.bin"
PATH="$lsp_path:$PATH" go run ./bench/lsp -bin "$BIN" -runs 20 || echo "bench/lsp failed: MISS"
