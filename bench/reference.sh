# Sourced by the bench sections that measure against the reference MCP
# filesystem server. reference_filesystem prints the path of
# @modelcontextprotocol/server-filesystem's entry point, installing it into
# $BENCH_CACHE/npm on first use, or nothing when npm or node is missing
# (then the reference column stays empty).
reference_filesystem() {
  local npm_dir="${BENCH_CACHE:-bench/.cache}/npm"
  local server="$npm_dir/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
  if [ ! -f "$server" ] && command -v npm >/dev/null; then
    npm install --prefix "$npm_dir" --no-audit --no-fund --loglevel=error @modelcontextprotocol/server-filesystem >/dev/null 2>&1 ||
      echo "(npm install of @modelcontextprotocol/server-filesystem failed; the reference column stays empty)" >&2
  fi
  if [ -f "$server" ] && command -v node >/dev/null; then
    echo "$server"
  fi
}
