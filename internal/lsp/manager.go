package lsp

import (
	"context"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"steerable.dev/sidecar/protocol"
)

// Options configure a Manager; cmd fills them from the Config.
type Options struct {
	Workspace string // absolute, symlinks resolved
	Launcher  Launcher
	Environ   []string // the scrubbed environment servers start with
	CacheRoot string   // each server writes only CacheRoot/NAME ...
	TempRoot  string   // ... and TempRoot/lsp-NAME (its TMPDIR)
	Version   string

	StartTimeout    time.Duration // process start to initialize answered
	RequestTimeout  time.Duration // one request
	IdleTimeout     time.Duration // 0: never stopped for idleness
	DiagnosticsWait time.Duration // AfterWrite's wait for publishDiagnostics
	StopGrace       time.Duration // shutdown/exit, then the tree is killed
	MaxFileBytes    int64         // larger files are not sent to a server
}

// Manager owns the session's language servers.
type Manager struct {
	opts    Options
	log     zerolog.Logger
	servers []*server
	skipped []string
	closeMu sync.Once
}

// New returns a Manager for specs (Resolve's result); nothing starts until
// a file of a server's is written or asked about.
func New(specs []Spec, skipped []string, opts Options, log zerolog.Logger) *Manager {
	if opts.MaxFileBytes <= 0 {
		opts.MaxFileBytes = 4 << 20
	}
	m := &Manager{opts: opts, log: log, skipped: skipped}
	for _, s := range specs {
		m.servers = append(m.servers, &server{spec: s, m: m})
	}
	return m
}

// Enabled reports whether any server is configured or found.
func (m *Manager) Enabled() bool { return m != nil && len(m.servers) > 0 }

// Names lists the servers, for the tool's description.
func (m *Manager) Names() []string {
	var out []string
	for _, s := range m.servers {
		out = append(out, s.spec.Name)
	}
	return out
}

// rel is abs relative to the workspace, slash-separated ("" when outside).
func (m *Manager) rel(abs string) string {
	r, err := filepath.Rel(m.opts.Workspace, abs)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return ""
	}
	return filepath.ToSlash(r)
}

// display is how a path is shown to the model: workspace-relative when
// inside it, absolute otherwise.
func (m *Manager) display(abs string) string {
	if r := m.rel(abs); r != "" {
		return r
	}
	return abs
}

// serverFor is the first server whose patterns match abs, or nil.
func (m *Manager) serverFor(abs string) *server {
	r := m.rel(abs)
	if r == "" {
		return nil
	}
	for _, s := range m.servers {
		if s.spec.Matches(r) {
			return s
		}
	}
	return nil
}

// Check is checks.lsp: every server's state, error when one failed to
// start, warn when one crashed.
func (m *Manager) Check() protocol.Check {
	if !m.Enabled() {
		msg := "no language server configured or found on PATH (STEERABLE_LSP_CONFIG)"
		if len(m.skipped) > 0 {
			msg += "; not used: " + strings.Join(m.skipped, ", ")
		}
		return protocol.Check{Status: protocol.CheckOK, Message: msg}
	}
	worst := 0
	var parts []string
	for _, s := range m.servers {
		msg, level := s.state()
		parts = append(parts, msg)
		worst = max(worst, level)
	}
	if len(m.skipped) > 0 {
		parts = append(parts, "not used: "+strings.Join(m.skipped, ", "))
	}
	status := []string{protocol.CheckOK, protocol.CheckWarn, protocol.CheckError}[worst]
	return protocol.Check{Status: status, Message: strings.Join(parts, "; ")}
}

// Close stops every server and its whole process tree; nothing starts
// after it.
func (m *Manager) Close(grace time.Duration) {
	if m == nil {
		return
	}
	m.closeMu.Do(func() {
		var wg sync.WaitGroup
		for _, s := range m.servers {
			wg.Add(1)
			go func() { defer wg.Done(); s.stop(grace, true) }()
		}
		wg.Wait()
	})
}

// AfterWrite is the file tools' hook: the files changed (absolute paths;
// deleted ones are closed on their server) are sent to their servers, and
// the diagnostics published for them within DiagnosticsWait are returned.
// nil when no server covers any of them.
func (m *Manager) AfterWrite(ctx context.Context, changed []string) *Report {
	if !m.Enabled() {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, m.opts.DiagnosticsWait)
	defer cancel()
	type pendingDoc struct {
		s      *server
		cl     *client
		abs    string
		lines  []string
		target waitTarget
		before []diagEntry
	}
	var docs []pendingDoc
	rep := &Report{Items: []Diagnostic{}}
	covered := false
	for _, abs := range sortedUnique(changed) {
		s := m.serverFor(abs)
		if s == nil {
			continue
		}
		covered = true
		text, err := readText(abs, m.opts.MaxFileBytes)
		cl, release, aerr := s.acquire(ctx)
		if aerr != nil {
			rep.Pending = ctx.Err() != nil
			rep.Error = aerr.Error()
			continue
		}
		defer release()
		if err != nil { // deleted, or too large to send
			cl.forget(ctx, abs)
			continue
		}
		t, before := cl.prepare(ctx, abs, text)
		docs = append(docs, pendingDoc{s: s, cl: cl, abs: abs, lines: splitLines(text), target: t, before: before})
	}
	if !covered {
		return nil
	}
	for _, d := range docs {
		diags, final := d.cl.diags.waitFor(ctx, d.target.uri, d.target.version, d.target.mark, d.target.settle)
		if !final {
			rep.Pending = true
		}
		rep.New += countNew(d.before, diags)
		rep.Items = append(rep.Items, view(m.display(d.abs), d.lines, diags)...)
	}
	sortDiagnostics(rep.Items)
	if len(rep.Items) > maxDiagnostics {
		rep.Items, rep.Truncated = rep.Items[:maxDiagnostics], true
	}
	return rep
}

func sortedUnique(paths []string) []string {
	out := append([]string(nil), paths...)
	sort.Strings(out)
	j := 0
	for i, p := range out {
		if i == 0 || p != out[j-1] {
			out[j] = p
			j++
		}
	}
	return out[:j]
}
