package tools

import (
	"time"

	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/codesearch"
	"steerable.dev/sidecar/internal/files"
	"steerable.dev/sidecar/internal/readstate"
	"steerable.dev/sidecar/internal/runcode"
	"steerable.dev/sidecar/internal/sandbox"
	"steerable.dev/sidecar/internal/shellsession"
	"steerable.dev/sidecar/internal/todo"
	"steerable.dev/sidecar/internal/web"
)

// Deps is what the built-in tools need from the process: cmd fills it from
// the Config at boot (tools never read the environment), and Builtins hands
// each tool only the fields it uses.
type Deps struct {
	Host Host
	Log  zerolog.Logger

	// Sandbox runs bash (and later run_code); nil leaves bash out.
	Sandbox            *sandbox.Sandbox
	BashMaxTimeoutMs   int
	BashMaxOutputBytes int
	// Sessions keeps bash_session's shells (nil leaves bash_session and
	// write_stdin out); they run under Sandbox.
	Sessions *shellsession.Manager
	// Registry is the registry the built-ins join; tool_search searches
	// its deferred tier (nil leaves tool_search out).
	Registry       *Registry
	AskUser        AskUserHandler // nil: ask the host (Host.AskUser)
	AskUserTimeout time.Duration  // 0: wait for the answers
	// Web tools: nil leaves the tool out (--no-web-tools, a bad web
	// variable in serve posture, no search provider configured).
	WebFetcher  *web.Fetcher
	WebSearcher *web.Searcher
	// Downloader is what bash can download a file with, for web_fetch's
	// refusals of binary bodies: "curl", "wget", "python3" or "" (cmd looks
	// on PATH at boot).
	Downloader string
	// File tools (registered when Files is set).
	Files                  *files.Workspace
	ReadState              *readstate.Store
	RequireReadBeforeWrite bool  // the hard gate (STEERABLE_REQUIRE_READ_BEFORE_WRITE)
	FileMaxBytes           int64 // STEERABLE_FILE_MAX_BYTES
	Media                  MediaOptions
	// grep and glob's default ignore set (STEERABLE_SEARCH_IGNORE); nil:
	// codesearch.DefaultIgnore.
	SearchIgnore []string
	// run_code (registered when RunCode, Dispatcher and the sandbox are
	// set): the session's interpreter runtime, and the pipeline its nested
	// calls go through.
	RunCode    *runcode.Runtime
	Dispatcher *Dispatcher
	// todo_write (registered when Todos is set) and who hears of its
	// changes (todo.updated; nil: nobody).
	Todos        *todo.Store
	TodoNotifier todo.Notifier
}

// Builtins is the explicit list of built-in tools, registered with source
// "builtin". Tools that are not configured are simply left out, so a host
// that builds its list from tool.list never advertises a broken tool. Each
// tool is given only what it uses.
func Builtins(d Deps) []Tool {
	var out []Tool
	if sb := bashSandbox(d); sb != nil {
		if _, err := sb.Shell(); err == nil { // else checks.sandbox says why
			out = append(out, newBash(bashEnvOf(d)))
		}
	}
	if d.Sessions != nil && bashSandbox(d) != nil {
		out = append(out, newBashSession(sessionEnvOf(d)), newWriteStdin(sessionEnvOf(d)))
	}
	if d.Registry != nil {
		out = append(out, NewToolSearch(d.Registry))
	}
	askHandler := d.AskUser
	if askHandler == nil {
		askHandler = d.Host
	}
	out = append(out, NewAskUser(askHandler, d.AskUserTimeout, d.Log))
	if d.WebFetcher != nil {
		out = append(out, WebFetch(d.WebFetcher, Downloads{Sandbox: bashSandbox(d), Downloader: d.Downloader}))
	}
	if d.WebSearcher != nil {
		out = append(out, WebSearch(d.WebSearcher))
	}
	if d.Files != nil && d.ReadState != nil {
		env := fileEnvOf(d)
		out = append(out, newReadFile(env), newWriteFile(env), newEditFile(env), newApplyPatch(env), newNotebookEdit(env))
	}
	if d.Files != nil {
		search := codesearch.New(d.Files, codesearch.Options{MaxFileBytes: d.FileMaxBytes, Ignore: d.SearchIgnore})
		out = append(out, newGrep(search), newGlob(search))
	}
	if d.Todos != nil {
		out = append(out, NewTodoWrite(d.Todos, d.TodoNotifier))
	}
	if d.RunCode != nil && d.Dispatcher != nil && d.Sandbox != nil {
		out = append(out, newRunCode(runCode{rt: d.RunCode, disp: d.Dispatcher, sb: d.Sandbox, host: d.Host}))
	}
	return out
}

// bashSandbox is the sandbox bash runs under, or nil when bash is not
// registered (it needs both the sandbox and the workspace).
func bashSandbox(d Deps) *sandbox.Sandbox {
	if d.Sandbox != nil && d.Files != nil {
		return d.Sandbox
	}
	return nil
}

func bashEnvOf(d Deps) bashEnv {
	return bashEnv{Sandbox: d.Sandbox, Files: d.Files, Host: d.Host, MaxTimeoutMs: d.BashMaxTimeoutMs, MaxOutputBytes: d.BashMaxOutputBytes}
}

func sessionEnvOf(d Deps) sessionEnv {
	return sessionEnv{Sessions: d.Sessions, Sandbox: d.Sandbox, Host: d.Host}
}

func fileEnvOf(d Deps) fileEnv {
	return fileEnv{ws: d.Files, state: d.ReadState, requireRead: d.RequireReadBeforeWrite, maxBytes: d.FileMaxBytes, media: d.Media}
}
