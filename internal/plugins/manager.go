package plugins

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

// Options configure a Manager; cmd fills them from the Config.
type Options struct {
	Workspace string   // absolute; the default cwd and writable directory
	TempDir   string   // each plugin's own temp dir is made below it (the session temp dir)
	Environ   []string // the scrubbed sidecar environment
	Version   string   // the sidecar's, sent to servers as clientInfo
	// Network is the session's STEERABLE_SANDBOX_NETWORK: a plugin with
	// the network while bash has none is privileged (exposure.go).
	Network bool

	StartTimeout    time.Duration // process start to tools listed
	CallTimeout     time.Duration // one tools/call
	MaxOutputBytes  int           // text and structured content kept per result
	MaxMessageBytes int           // largest message a server may send
	MaxTools        int           // tools one server may list
	StopGrace       time.Duration // stdin closed → SIGTERM → SIGKILL, each step
}

// startWidth is how many servers start at once at boot.
const startWidth = 4

// Manager is the plugin registry: every plugin in load order, their
// lifecycle, and what they registered. It is safe for concurrent use.
type Manager struct {
	reg      *tools.Registry
	launcher Launcher
	host     hostNotifier
	log      zerolog.Logger
	opts     Options
	ctx      context.Context // ended by Close: aborts starts in progress
	cancel   context.CancelFunc

	mu       sync.Mutex
	plugins  []*plugin
	problems []string // failures that have no plugin to list (a source, a duplicate name)
	closed   bool
	bg       sync.WaitGroup // schema compiles after registration (compileLater)
}

// NewManager returns a manager that registers into reg, launches servers
// with l and relays their progress to host.
func NewManager(reg *tools.Registry, l Launcher, host hostNotifier, log zerolog.Logger, opts Options) *Manager {
	if opts.StopGrace <= 0 {
		opts.StopGrace = time.Second
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Manager{reg: reg, launcher: l, host: host, log: log, opts: opts, ctx: ctx, cancel: cancel}
}

func (m *Manager) logFor(name string) zerolog.Logger {
	return m.log.With().Str("plugin", name).Logger()
}

// warnUnused logs the keys of a plugin's entry that this sidecar ignores.
func (m *Manager) warnUnused(s Spec) {
	if len(s.Warnings) > 0 {
		log := m.logFor(s.Name)
		log.Warn().Strs("keys", s.Warnings).Str("origin", s.Origin).Msg("plugin manifest keys not used by steerable-sidecar")
	}
}

// Load discovers the sources in order and loads their plugins. Servers
// start concurrently, a few at a time, then register in load order, so
// which of two conflicting plugins wins never depends on which started
// first. It returns every failure, each naming its plugin (and is nil when
// all loaded); the caller decides whether that stops the boot.
func (m *Manager) Load(ctx context.Context, sources ...Source) error {
	var errs []error
	var fresh []*plugin
	for _, src := range sources {
		specs, err := src.Discover(ctx)
		if err != nil {
			errs = append(errs, m.problem("", err.Error()))
			continue
		}
		for _, s := range specs {
			if prev := m.named(s.Name, fresh); prev != nil {
				errs = append(errs, m.problem(s.Name, fmt.Sprintf("plugin %q from %s: a plugin of that name was already loaded from %s; give one of them another name", s.Name, s.Origin, prev.spec.Origin)))
				continue
			}
			m.warnUnused(s)
			p := &plugin{name: s.Name, spec: s, src: src, m: m, state: protocol.PluginDisabled}
			p.op.Lock() // until loaded: a lifecycle call waits for the boot's outcome
			fresh = append(fresh, p)
		}
	}
	m.mu.Lock()
	m.plugins = append(m.plugins, fresh...)
	m.mu.Unlock()
	starts := m.startAll(ctx, fresh)
	for i, p := range fresh {
		if err := p.boot(ctx, starts[i]); err != nil {
			errs = append(errs, err)
		}
		p.op.Unlock()
	}
	return errors.Join(errs...)
}

// startAll launches the servers of the plugins that start at boot.
func (m *Manager) startAll(ctx context.Context, ps []*plugin) []*started {
	ctx, stop := m.bound(ctx)
	defer stop()
	out := make([]*started, len(ps))
	sem := make(chan struct{}, startWidth)
	var wg sync.WaitGroup
	for i, p := range ps {
		if p.spec.Disabled || p.spec.Invalid != nil || !p.spec.external() {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			st := p.launch(ctx)
			out[i] = &st
		}()
	}
	wg.Wait()
	return out
}

// boot finishes loading one plugin at start-up.
func (p *plugin) boot(ctx context.Context, st *started) error {
	switch {
	case p.spec.Disabled && p.spec.Invalid == nil:
		return nil
	case st != nil:
		err := p.up(*st)
		if err != nil {
			p.fail(err)
		}
		return err
	}
	err := p.enable(ctx)
	if err != nil {
		p.fail(err)
	}
	return err
}

// fail records a plugin that could not load: failed, without tools.
func (p *plugin) fail(err error) {
	p.mu.Lock()
	p.state, p.err = protocol.PluginFailed, errText(err)
	p.mu.Unlock()
	log := p.m.logFor(p.spec.Name)
	log.Error().Err(err).Msg("plugin failed to load")
}

// problem records a failure no plugin record can carry (name is the
// plugin's, or "" for a whole source).
func (m *Manager) problem(name, msg string) error {
	m.mu.Lock()
	m.problems = append(m.problems, msg)
	m.mu.Unlock()
	m.log.Error().Msg(msg)
	err := protocol.Errorf(protocol.CodePluginLoad, "%s", msg)
	if name != "" {
		err = err.WithData("plugin", name)
	}
	return err
}

func (m *Manager) named(name string, more []*plugin) *plugin {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range append(slices.Clone(m.plugins), more...) {
		if p.name == name {
			return p
		}
	}
	return nil
}

// bound is ctx, also ended by Close.
func (m *Manager) bound(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(m.ctx, cancel)
	return ctx, func() { stop(); cancel() }
}

// List is every plugin in load order (plugin.list).
func (m *Manager) List() []protocol.PluginRecord {
	m.mu.Lock()
	ps := slices.Clone(m.plugins)
	m.mu.Unlock()
	out := make([]protocol.PluginRecord, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.record())
	}
	return out
}

// op runs one lifecycle operation on the named plugin, its op lock held,
// and returns the record after it.
func (m *Manager) op(ctx context.Context, name string, fn func(ctx context.Context, p *plugin) error) (protocol.PluginRecord, error) {
	p := m.named(name, nil)
	if p == nil {
		return protocol.PluginRecord{}, stateErr(name, "unknown plugin %q; plugin.list names the loaded ones", name)
	}
	p.op.Lock()
	defer p.op.Unlock()
	m.mu.Lock()
	closed := m.closed
	m.mu.Unlock()
	switch {
	case closed:
		return protocol.PluginRecord{}, stateErr(name, "the sidecar is shutting down")
	case p.unloaded:
		return protocol.PluginRecord{}, stateErr(name, "unknown plugin %q: it was unloaded", name)
	}
	ctx, stop := m.bound(ctx)
	defer stop()
	err := fn(ctx, p)
	return p.record(), err
}

func (p *plugin) currentState() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.state
}

// Enable starts a disabled plugin and registers its tools.
func (m *Manager) Enable(ctx context.Context, name string) (protocol.PluginRecord, error) {
	return m.op(ctx, name, func(ctx context.Context, p *plugin) error {
		switch p.currentState() {
		case protocol.PluginEnabled:
			return stateErr(name, "plugin %q is already enabled", name)
		case protocol.PluginFailed:
			return stateErr(name, "plugin %q failed; reload it with plugin.reload, or disable it first", name)
		}
		return p.enable(ctx)
	})
}

// Disable removes a plugin's tools and stops its server.
func (m *Manager) Disable(ctx context.Context, name string) (protocol.PluginRecord, error) {
	return m.op(ctx, name, func(_ context.Context, p *plugin) error {
		if p.currentState() == protocol.PluginDisabled {
			return stateErr(name, "plugin %q is already disabled", name)
		}
		p.disable(fmt.Sprintf("it was disabled (plugin.disable); enable it with plugin.enable {\"name\":%q}", name))
		return nil
	})
}

// Unload removes a plugin, in any state, from the sidecar.
func (m *Manager) Unload(ctx context.Context, name string) (protocol.PluginRecord, error) {
	return m.op(ctx, name, func(_ context.Context, p *plugin) error {
		p.disable("it was unloaded (plugin.unload)")
		p.mu.Lock()
		p.unloaded = true
		p.mu.Unlock()
		m.mu.Lock()
		m.plugins = slices.DeleteFunc(m.plugins, func(q *plugin) bool { return q == p })
		m.mu.Unlock()
		return nil
	})
}

// Reload re-reads a plugin's entry, restarts its server and swaps its
// tools. The checks run in the order of SPEC §4.7: unknown, not
// reloadable, disabled; an entry invalid at boot may be fixed and
// reloaded.
func (m *Manager) Reload(ctx context.Context, name string) (protocol.PluginRecord, error) {
	return m.op(ctx, name, func(ctx context.Context, p *plugin) error {
		switch {
		case !p.spec.external():
			return stateErr(name, "plugin %q is compiled in and cannot be reloaded (there is no process to restart)", name)
		case p.currentState() == protocol.PluginDisabled:
			return stateErr(name, "plugin %q is disabled; enable it before reloading (plugin.enable)", name)
		}
		return p.reload(ctx)
	})
}

// errText is an error's message without the code prefix of *protocol.Error.
func errText(err error) string {
	var pe *protocol.Error
	if errors.As(err, &pe) {
		return pe.Message
	}
	return err.Error()
}

// stateErr is a plugin_state error naming the plugin.
func stateErr(name, format string, args ...any) *protocol.Error {
	return protocol.Errorf(protocol.CodePluginState, format, args...).WithData("plugin", name)
}

// Check is checks.plugins: error when a plugin failed (or a source did),
// warn when one runs unconfined, else ok; the message names each.
func (m *Manager) Check() protocol.Check {
	m.mu.Lock()
	problems := slices.Clone(m.problems)
	m.mu.Unlock()
	var enabled, disabled, failed, unconfined []string
	for _, r := range m.List() {
		switch r.State {
		case protocol.PluginEnabled:
			enabled = append(enabled, fmt.Sprintf("%s (%d tools)", r.Name, len(r.Tools)))
			if why := m.schemaProblem(r.Name); why != "" {
				failed = append(failed, fmt.Sprintf("%s: %s", r.Name, why))
			}
		case protocol.PluginFailed:
			failed = append(failed, fmt.Sprintf("%s: %s", r.Name, r.Error))
		default:
			disabled = append(disabled, r.Name)
		}
		if r.State == protocol.PluginEnabled && r.Sandbox.Enforcement == "none" && r.Sandbox.Backend != "in-process" {
			unconfined = append(unconfined, unconfinedNote(r))
		}
	}
	parts := []string{fmt.Sprintf("%d enabled", len(enabled))}
	if len(enabled) > 0 {
		parts[0] += ": " + strings.Join(enabled, ", ")
	}
	if len(disabled) > 0 {
		parts = append(parts, "disabled: "+strings.Join(disabled, ", "))
	}
	status := protocol.CheckOK
	if len(unconfined) > 0 {
		status = protocol.CheckWarn
		parts = append(parts, "unsandboxed: "+strings.Join(unconfined, ", "))
	}
	if len(failed)+len(problems) > 0 {
		status = protocol.CheckError
		parts = append(parts, "failed: "+strings.Join(append(failed, problems...), "; "))
	}
	return protocol.Check{Status: status, Message: strings.Join(parts, "; ")}
}

// schemaProblem is what compileLater found wrong with the named plugin's
// schemas ("" when nothing).
func (m *Manager) schemaProblem(name string) string {
	p := m.named(name, nil)
	if p == nil {
		return ""
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.schemas.String()
}

func unconfinedNote(r protocol.PluginRecord) string {
	if r.Sandbox.OptOut {
		return r.Name + ` (sandbox: "none")`
	}
	return r.Name + " (no sandbox backend works here)"
}

// Close stops every server (stdin closed, then SIGTERM and SIGKILL after
// grace each; grace 0 kills at once) and refuses later lifecycle calls.
// Starts in progress are aborted.
func (m *Manager) Close(grace time.Duration) {
	m.mu.Lock()
	m.closed = true
	ps := slices.Clone(m.plugins)
	m.mu.Unlock()
	m.cancel()
	var wg sync.WaitGroup
	for _, p := range ps {
		wg.Go(func() {
			p.op.Lock()
			defer p.op.Unlock()
			p.mu.Lock()
			srv, tmp := p.srv, p.tmp
			p.mu.Unlock()
			if srv != nil {
				srv.stop("the sidecar is shutting down", grace)
			}
			if tmp != "" {
				os.RemoveAll(tmp)
			}
		})
	}
	wg.Wait()
	m.bg.Wait()
}
