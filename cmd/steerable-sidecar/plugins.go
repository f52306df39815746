package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"steerable.dev/sidecar/internal/plugins"
	"steerable.dev/sidecar/internal/rpc"
	"steerable.dev/sidecar/internal/sandbox"
	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

// compiledPlugins are the plugins compiled into this binary (SPEC §4.7
// "compiled-in"): Go code that embeds the sidecar appends to it, in a file
// of this package, before main runs. A release build has none; the
// end-to-end test binary adds an example.
var compiledPlugins plugins.CompiledIn

// pluginStopGrace is each step of stopping a plugin at exit (stdin closed,
// then SIGTERM, then SIGKILL); shutdown_now and signals kill at once.
const pluginStopGrace = time.Second

// loadPlugins loads the configured plugin sources in SPEC's order —
// installed, directory, compiled-in — after the built-ins, so a plugin can
// never take a built-in's name. Any failure stops the boot (exit 2) unless
// STEERABLE_PLUGINS_DEGRADE=1, which loads the rest and reports it in
// checks.plugins.
func (a *app) loadPlugins(host tools.Host) error {
	sources, err := a.pluginSources()
	if err != nil {
		return &bootError{err.Error()}
	}
	if len(sources) == 0 {
		a.checks["plugins"] = protocol.Check{Status: protocol.CheckOK, Message: "no plugin sources configured"}
		return nil
	}
	a.plugins = plugins.NewManager(a.registry, plugins.NewSandboxLauncher(a.sandbox), pluginProgress{host}, a.log.With().Str("component", "plugins").Logger(), plugins.Options{
		Workspace: string(a.cfg.Workspace), TempDir: a.sandbox.TempDir(), Environ: a.sandbox.Env(sandbox.EnvScrubbed), Version: version,
		Network:         a.cfg.SandboxNetwork,
		StartTimeout:    time.Duration(a.cfg.PluginStartTimeoutMs) * time.Millisecond,
		CallTimeout:     time.Duration(a.cfg.PluginCallTimeoutMs) * time.Millisecond,
		MaxOutputBytes:  int(a.cfg.PluginMaxOutputBytes),
		MaxMessageBytes: int(a.cfg.PluginMaxMessageBytes),
		MaxTools:        a.cfg.PluginMaxTools,
		StopGrace:       pluginStopGrace,
	})
	err = a.plugins.Load(context.Background(), sources...)
	if err != nil && !a.cfg.PluginsDegrade {
		a.closePlugins(0) // the ones that did start; the process exits next
		return &bootError{"plugins failed to load (STEERABLE_PLUGINS_DEGRADE=1 starts without them):\n  " + strings.Join(loadMessages(err), "\n  ")}
	}
	return nil
}

// pluginProgress relays the plugins' progress to the host. internal/plugins
// hands its relay an untyped notification; the only one it sends is
// tool.progress, so anything else is dropped.
type pluginProgress struct{ host tools.Host }

// Notify implements the plugins' progress relay.
func (p pluginProgress) Notify(ctx context.Context, _ string, params any) error {
	if pp, ok := params.(protocol.ToolProgressParams); ok {
		p.host.Progress(ctx, pp)
	}
	return nil
}

// pluginSources are the configured sources, in load order.
func (a *app) pluginSources() ([]plugins.Source, error) {
	home, _ := os.UserHomeDir()
	dec := plugins.Decoder{Expander: plugins.Expander{Workspace: string(a.cfg.Workspace), Home: home, LookupEnv: os.LookupEnv}}
	var out []plugins.Source
	if p := a.cfg.PluginsConfig; p != "" {
		abs, err := filepath.Abs(string(p))
		if err != nil {
			return nil, err
		}
		out = append(out, plugins.Installed{Path: abs, Decoder: dec})
	}
	if d := a.cfg.PluginDir; d != "" {
		abs, err := filepath.Abs(string(d))
		if err != nil {
			return nil, err
		}
		out = append(out, plugins.Directory{Path: abs, Decoder: dec})
	}
	if len(compiledPlugins) > 0 {
		out = append(out, compiledPlugins)
	}
	return out, nil
}

// loadMessages are the messages of Load's joined errors, one per failure.
func loadMessages(err error) []string {
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		var pe *protocol.Error
		if errors.As(e, &pe) {
			out = append(out, pe.Message)
		} else {
			out = append(out, e.Error())
		}
	}
	return out
}

// closePlugins stops every plugin process; grace 0 kills them at once.
func (a *app) closePlugins(grace time.Duration) {
	if a.plugins != nil {
		a.plugins.Close(grace)
	}
}

// pluginService is the manager as rpc sees it; nil (no sources) stays a
// nil interface, so plugin.list answers an empty list.
func pluginService(m *plugins.Manager) rpc.Plugins {
	if m == nil {
		return nil
	}
	return m
}
