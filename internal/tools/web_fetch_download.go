package tools

import (
	"fmt"

	"steerable.dev/sidecar/internal/sandbox"
)

// Downloads says how this session can download what web_fetch will not
// read (a binary body, or one in an encoding it does not decode), so the
// refusal names only tools that exist where the command would run: bash,
// when it is registered, can run, and may reach the network (it runs with
// the network off unless STEERABLE_SANDBOX_NETWORK=1), with the downloader
// cmd found on PATH at boot. bash's children see the sidecar's PATH and,
// under every backend, its file system read-only, so that lookup holds
// inside the sandbox too.
type Downloads struct {
	Sandbox    *sandbox.Sandbox // bash's; nil when bash is not registered
	Downloader string           // "curl", "wget", "python3" or "" (none on PATH)
}

// downloadCommands are the command lines per downloader, with FILE and URL
// as placeholders: the URL is the server's to choose, so it is never pasted
// into a shell command for the model to copy.
var downloadCommands = map[string]string{
	"curl":    "curl -fsSL -o FILE URL",
	"wget":    "wget -q -O FILE URL",
	"python3": "python3 -c 'import sys, urllib.request; urllib.request.urlretrieve(sys.argv[1], sys.argv[2])' URL FILE",
}

// elsewhere is the way out when nothing here can download.
const elsewhere = "ask the user for the file, or look for a text version of it (an HTML page, .txt or .md)"

// hint completes a refusal: how to download the body, or why nothing in
// this session can and what to do instead. encoding is the body's
// Content-Encoding when that was the reason, else "".
func (d Downloads) hint(encoding string) string {
	switch {
	case d.Sandbox == nil:
		return "no tool in this session can download it (bash is not available); " + elsewhere
	case d.Sandbox.Unavailable():
		return "bash cannot run here (no working sandbox, and STEERABLE_SANDBOX_REQUIRE=1), so nothing in this session can download it; " + elsewhere
	case !d.Sandbox.Info().Network:
		return "bash runs without network access in this session (the user can allow it with STEERABLE_SANDBOX_NETWORK=1), so it cannot download it either; " + elsewhere
	}
	cmd, ok := downloadCommands[d.Downloader]
	switch {
	case !ok:
		return "bash has network access but none of curl, wget or python3 is installed; " + elsewhere
	case encoding != "" && d.Downloader == "curl":
		return "to download it decoded, use bash: curl --compressed -fsSL -o FILE URL"
	case encoding != "":
		return fmt.Sprintf("to download it, use bash: %s (FILE keeps the %s encoding)", cmd, encoding)
	}
	return "to download it, use bash: " + cmd
}
