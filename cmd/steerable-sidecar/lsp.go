package main

import (
	"path/filepath"
	"time"

	"steerable.dev/sidecar/internal/lsp"
	"steerable.dev/sidecar/internal/sandbox"
	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

// lspStopGrace is how long a language server gets to exit after shutdown
// before its tree is killed.
const lspStopGrace = time.Second

// wireLSP builds the language-server manager (STEERABLE_LSP_CONFIG and the
// built-in defaults found on PATH), wraps the file-changing tools so their
// results carry data.diagnostics, and adds the lsp tool. With no server,
// builtins come back unchanged and checks.lsp says why.
func (a *app) wireLSP(builtins []tools.Tool) []tools.Tool {
	var configured []lsp.Spec
	if p := string(a.cfg.LSPConfig); p != "" {
		specs, err := lsp.LoadFile(p)
		if err != nil {
			a.log.Error().Err(err).Msg("language servers from STEERABLE_LSP_CONFIG not used")
			a.checks["lsp"] = protocol.Check{Status: protocol.CheckError, Message: err.Error()}
			return builtins
		}
		configured = specs
	}
	ws := string(a.cfg.Workspace)
	cacheRoot := filepath.Join(a.sandbox.TempDir(), "lsp-cache")
	if sd := string(a.cfg.StateDir); sd != "" {
		cacheRoot = filepath.Join(sd, "lsp-cache")
	}
	var specs []lsp.Spec
	var skipped []string
	if a.cfg.LSPDefaults {
		specs, skipped = lsp.Resolve(configured, []string{ws, a.sandbox.TempDir(), cacheRoot}, nil)
	} else {
		specs = configured
	}
	a.lsp = lsp.New(specs, skipped, lsp.Options{
		Workspace: ws, Launcher: lsp.NewSandboxLauncher(a.sandbox),
		Environ: a.sandbox.Env(sandbox.EnvScrubbed), CacheRoot: cacheRoot, TempRoot: a.sandbox.TempDir(), Version: version,
		StartTimeout:    time.Duration(a.cfg.LSPStartTimeoutMs) * time.Millisecond,
		RequestTimeout:  time.Duration(a.cfg.LSPRequestTimeoutMs) * time.Millisecond,
		IdleTimeout:     time.Duration(a.cfg.LSPIdleMs) * time.Millisecond,
		DiagnosticsWait: time.Duration(a.cfg.LSPDiagnosticsWaitMs) * time.Millisecond,
		StopGrace:       lspStopGrace, MaxFileBytes: int64(a.cfg.FileMaxBytes),
	}, a.log.With().Str("component", "lsp").Logger())
	if !a.lsp.Enabled() || a.files == nil {
		return builtins
	}
	return append(tools.WithDiagnostics(builtins, a.lsp), tools.NewLSP(a.lsp, a.files))
}

// closeLSP stops every language server and what it started.
func (a *app) closeLSP(grace time.Duration) {
	if a.lsp != nil {
		a.lsp.Close(grace)
	}
}
