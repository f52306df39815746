package main

import (
	"strings"

	"steerable.dev/sidecar/internal/config"
)

func usage() string {
	return strings.TrimLeft(`
steerable-sidecar — the tools an LLM agent calls, driven over JSON-RPC 2.0 on stdio.

usage:
  steerable-sidecar [serve] [flags]        run the daemon (default): one JSON object per line on
                                           stdin/stdout, logs on stderr
  steerable-sidecar call TOOL [JSON|-]     run one tool call through the same pipeline and print the
                                           ToolResult; exit 0 on success, 1 on a failed result
  steerable-sidecar mcp [flags]            serve the same tools to an MCP client (Claude Desktop, Claude
                                           Code, VS Code, Cursor, ...) over stdio; see mcp --help
  steerable-sidecar tools [--model] [--strategy S] [--ask-user]
                                           print the tool descriptors
  steerable-sidecar contract               print tool_contract.json
  steerable-sidecar version                print the version, commit, Go version and target

serve flags:
  --cwd DIR            workspace root (overrides STEERABLE_WORKSPACE; default: the current directory)
  --no-web-tools       register neither web_fetch nor web_search
  --strict-config      exit 2 on any invalid or misspelt environment variable instead of degrading
  --framing F          newline (default) or content-length (LSP headers)
  --log-level L        trace, debug, info (default), warn, error
  --log-format F       json (default) or console
  --quiet-ready        do not write the __SIDECAR_READY__:<health> line on stderr

Every subcommand takes --help. Exit codes: 0 ok, 1 failed tool result (call), 2 usage or
configuration error.

environment variables (an empty one means its default; durations are milliseconds or 30s,
10m; sizes are a count or 16MiB, 1GB; a leading ~, $HOME or ${HOME} in a path is the home
directory; a misspelt STEERABLE_ name is reported with the nearest real one; an invalid
security-relevant value stops the boot in every mode):
`, "\n") + config.Table()
}
