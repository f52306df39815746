package plugins

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"steerable.dev/sidecar/protocol"
)

// plugin is one plugin and its lifecycle (SPEC §4.7):
//
//	enabled ──disable──▶ disabled ──enable──▶ enabled (or disabled again, with the error)
//	enabled ──reload───▶ enabled (new process and tools swapped in, or the old ones kept)
//	enabled ──its process dies──▶ failed ──reload──▶ enabled
//	failed  ──disable──▶ disabled
//	any     ──unload───▶ gone from plugin.list
//
// op serialises the lifecycle operations of one plugin (and a tools
// refresh after list_changed); mu guards the fields, which plugin.list
// reads while an operation runs.
type plugin struct {
	name string // spec.Name, which never changes: read without a lock
	spec Spec   // written with op and mu held (reload re-reads it)
	src  Source // where spec came from; reload asks it again
	m    *Manager
	op   sync.Mutex

	mu       sync.Mutex
	state    string
	tools    []string // registered, in registration order
	err      string
	srv      *server // the running (or dead) server of an external plugin
	tmp      string  // its temp dir while it has a server
	unloaded bool
	schemas  *schemaReport // of the current registration of an external plugin's tools
}

// started is the outcome of launching a server: it runs and has listed
// its tools, or err says why not.
type started struct {
	srv  *server
	list []*mcp.Tool
	tmp  string
	err  error
}

// launch starts the plugin's server and reads its tools; nothing is
// registered yet.
func (p *plugin) launch(ctx context.Context) started {
	tmp, err := os.MkdirTemp(p.m.opts.TempDir, "plugin-"+strings.TrimSuffix(suggestPrefix(p.spec.Name), "__")+"-")
	if err != nil {
		return started{err: loadErr(p.spec, "cannot create its temp dir: %v", err)}
	}
	l, err := p.launchSpec(tmp)
	var srv *server
	var list []*mcp.Tool
	if err == nil {
		srv, list, err = startServer(ctx, p.m.launcher, serverConfig{
			plugin: p.spec.Name, launch: l, timeout: p.m.opts.StartTimeout, limit: p.m.opts.MaxMessageBytes,
			maxTools: p.m.opts.MaxTools, version: p.m.opts.Version, host: p.m.host, log: p.m.logFor(p.spec.Name),
		})
	}
	if err != nil {
		os.RemoveAll(tmp)
		return started{err: loadErr(p.spec, "%v", err)}
	}
	return started{srv: srv, list: list, tmp: tmp}
}

// launchSpec is the process to start: the command, in its cwd (the
// workspace by default), with the scrubbed environment plus exactly the
// manifest's env, under the manifest's sandbox policy.
func (p *plugin) launchSpec(tmp string) (Launch, error) {
	dir := p.spec.Cwd
	if dir == "" {
		dir = p.m.opts.Workspace
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return Launch{}, fmt.Errorf("its cwd %s is not a directory", dir)
	}
	policy, err := p.policy(tmp)
	if err != nil {
		return Launch{}, err
	}
	if err := p.checkExposure(policy, dir); err != nil {
		return Launch{}, err
	}
	return Launch{Argv: append([]string{p.spec.Command}, p.spec.Args...), Dir: dir, Env: p.env(tmp), Policy: policy}, nil
}

// policy is the manifest's sandbox with the plugin's temp dir writable;
// without "writable" the workspace is. Writable directories must exist
// (the backends bind real paths).
func (p *plugin) policy(tmp string) (Policy, error) {
	sb := p.spec.Sandbox
	dirs := sb.Writable
	if dirs == nil {
		dirs = []string{p.m.opts.Workspace}
	}
	out := Policy{None: sb.None, Network: sb.Network}
	for _, d := range dirs {
		real, err := filepath.EvalSymlinks(d)
		if err != nil {
			return Policy{}, fmt.Errorf("sandbox.writable %s: %v", d, err)
		}
		out.Writable = append(out.Writable, real)
	}
	if tmp != "" {
		out.Writable = append(out.Writable, tmp)
	}
	return out, nil
}

// env is the scrubbed sidecar environment, minus what the manifest sets,
// plus the manifest's env, with TMPDIR, TEMP and TMP at the plugin's own
// temp dir. A credential reaches the plugin only when its manifest names
// it.
func (p *plugin) env(tmp string) []string {
	set := map[string]string{"TMPDIR": tmp, "TEMP": tmp, "TMP": tmp}
	for k, v := range p.spec.Env {
		set[k] = v
	}
	out := make([]string, 0, len(p.m.opts.Environ)+len(set))
	for _, kv := range p.m.opts.Environ {
		if name, _, _ := strings.Cut(kv, "="); !hasKey(set, name) {
			out = append(out, kv)
		}
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, k+"="+set[k])
	}
	return out
}

func hasKey(m map[string]string, k string) bool { _, ok := m[k]; return ok }

// register builds the tools of a started server and swaps them in for the
// ones the plugin owns, atomically: all of them or, on any error, none.
func (p *plugin) register(st started, owned []string) ([]string, error) {
	r := newRecorder(p.spec, p.m.reg, owned)
	m := mapping{plugin: p.spec.Name, prefix: p.spec.ToolPrefix, maxOutput: p.m.opts.MaxOutputBytes, sandbox: st.srv.proc.Sandbox()}
	report := &schemaReport{plugin: p.spec.Name}
	for _, t := range st.list {
		tool, err := newMCPTool(t, st.srv, m, p.spec, p.m.opts.CallTimeout, p.m.reg)
		if err != nil {
			return nil, loadErr(p.spec, "%v", err)
		}
		tool.schemas = report
		if err := r.stage(tool); err != nil {
			return nil, err
		}
	}
	names, err := r.commit()
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.schemas = report
	p.mu.Unlock()
	p.m.compileLater(report, names)
	return names, nil
}

// registerCompiled runs a compiled-in plugin's Register through the
// recorder; a panic or an error registers nothing.
func (p *plugin) registerCompiled() (names []string, err error) {
	r := newRecorder(p.spec, p.m.reg, nil)
	defer func() {
		if v := recover(); v != nil {
			names, err = nil, loadErr(p.spec, "its Register panicked, nothing was registered: %v", v)
		}
	}()
	if err := p.spec.Register(r); err != nil {
		if errors.Is(err, protocol.ErrPluginLoad) {
			return nil, err
		}
		return nil, loadErr(p.spec, "its Register failed, nothing was registered: %v", err)
	}
	return r.commit()
}

// up makes a started server the plugin's: its tools registered, state
// enabled. On failure the server is stopped and nothing changed.
func (p *plugin) up(st started) error {
	p.mu.Lock()
	owned, old, oldTmp := p.tools, p.srv, p.tmp
	p.mu.Unlock()
	if st.err != nil {
		return st.err
	}
	names, err := p.register(st, owned)
	if err != nil {
		st.srv.stop("its tools could not be registered", 0)
		os.RemoveAll(st.tmp)
		return err
	}
	p.mu.Lock()
	p.srv, p.tmp, p.tools, p.state, p.err = st.srv, st.tmp, names, protocol.PluginEnabled, ""
	p.mu.Unlock()
	go p.watch(st.srv)
	if old != nil {
		old.stop("it was reloaded (plugin.reload); call the tool again", p.m.opts.StopGrace)
		os.RemoveAll(oldTmp)
	}
	return nil
}

// enable starts the plugin and registers its tools (state disabled, op
// held). On failure it stays disabled, without tools, the error recorded.
func (p *plugin) enable(ctx context.Context) error {
	var err error
	if p.spec.Invalid != nil {
		err = loadErr(p.spec, "%v", p.spec.Invalid)
	} else if p.spec.external() {
		err = p.up(p.launch(ctx))
	} else {
		var names []string
		if names, err = p.registerCompiled(); err == nil {
			p.mu.Lock()
			p.tools, p.state, p.err = names, protocol.PluginEnabled, ""
			p.mu.Unlock()
		}
	}
	if err != nil {
		p.mu.Lock()
		p.err = errText(err)
		p.mu.Unlock()
	}
	return err
}

// reload re-reads the plugin's manifest or config entry, so edited
// arguments or environment take effect, starts a new server before
// touching the registry, then swaps the tools (op held; state enabled or
// failed). A failure — an entry now invalid or gone included — leaves the
// old spec, tools and server as they were.
func (p *plugin) reload(ctx context.Context) error {
	next, err := p.reread(ctx)
	if err == nil {
		prev := p.setSpec(next)
		if err = p.up(p.launch(ctx)); err != nil {
			p.setSpec(prev)
		}
	}
	if err != nil {
		p.mu.Lock()
		p.err = "reload failed, the previous tools are kept: " + errText(err)
		p.mu.Unlock()
	}
	return err
}

// reread is the plugin's entry as its source describes it now.
func (p *plugin) reread(ctx context.Context) (Spec, error) {
	if p.src == nil {
		return p.spec, nil
	}
	specs, err := p.src.Discover(ctx)
	if err != nil {
		return Spec{}, loadErr(p.spec, "re-reading it: %v", err)
	}
	for _, s := range specs {
		if s.Name != p.spec.Name {
			continue
		}
		if s.Invalid != nil {
			return Spec{}, loadErr(s, "its entry is now invalid: %v", s.Invalid)
		}
		p.m.warnUnused(s)
		return s, nil
	}
	return Spec{}, loadErr(p.spec, "%s no longer has it; plugin.unload removes it", p.src.Name())
}

func (p *plugin) setSpec(s Spec) (prev Spec) {
	p.mu.Lock()
	defer p.mu.Unlock()
	prev, p.spec = p.spec, s
	return prev
}

// disable removes the tools at once, then stops the server (op held).
func (p *plugin) disable(why string) {
	p.mu.Lock()
	names, srv, tmp := p.tools, p.srv, p.tmp
	p.tools, p.srv, p.tmp, p.state, p.err = nil, nil, "", protocol.PluginDisabled, ""
	p.schemas = nil
	p.mu.Unlock()
	p.m.reg.Unregister(names...)
	if srv != nil {
		srv.stop(why, p.m.opts.StopGrace)
	}
	if tmp != "" {
		os.RemoveAll(tmp)
	}
}

// watch follows a server of the plugin until it is gone: list_changed
// refreshes the tools, a death marks the plugin failed.
func (p *plugin) watch(srv *server) {
	for {
		select {
		case <-srv.relist:
			p.refresh(srv)
		case <-srv.dead:
			p.died(srv)
			return
		}
	}
}

// died marks the plugin failed when srv, its current server, died. Its
// tools stay registered and answer follow-up errors naming plugin.reload.
func (p *plugin) died(srv *server) {
	why, died := srv.gone()
	if !died {
		return
	}
	p.mu.Lock()
	current := p.srv == srv && p.state == protocol.PluginEnabled
	if current {
		p.state = protocol.PluginFailed
		p.err = why + fmt.Sprintf("; reload it with plugin.reload {\"name\":%q}", p.name)
	}
	p.mu.Unlock()
	if current {
		log := p.m.logFor(p.name)
		log.Error().Str("reason", why).Msg("plugin failed; its tools answer errors until plugin.reload")
	}
}

// refresh re-reads the tools after notifications/tools/list_changed and
// swaps them in atomically; a list that cannot be registered leaves the
// previous tools, and the error is recorded.
func (p *plugin) refresh(srv *server) {
	p.op.Lock()
	defer p.op.Unlock()
	p.mu.Lock()
	current, owned := p.srv == srv && p.state == protocol.PluginEnabled, p.tools
	p.mu.Unlock()
	if !current {
		return
	}
	ctx, cancel := context.WithTimeout(p.m.ctx, p.m.opts.StartTimeout)
	defer cancel()
	list, err := srv.listTools(ctx, p.m.opts.MaxTools)
	var names []string
	if err == nil {
		names, err = p.register(started{srv: srv, list: list}, owned)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil {
		p.err = "the tool list changed but could not be registered, the previous tools are kept: " + err.Error()
		log := p.m.logFor(p.spec.Name)
		log.Warn().Err(err).Msg("plugin tools/list_changed not applied")
		return
	}
	p.tools, p.err = names, ""
}

// record is the plugin's PluginRecord.
func (p *plugin) record() protocol.PluginRecord {
	p.mu.Lock()
	defer p.mu.Unlock()
	rec := protocol.PluginRecord{Name: p.spec.Name, Source: p.spec.Source, Origin: p.spec.Origin, State: p.state,
		Tools: append([]string{}, p.tools...), Reloadable: p.spec.external(), Error: p.err}
	if bad := p.schemas.String(); bad != "" {
		rec.Error = strings.TrimPrefix(rec.Error+"; "+bad, "; ")
	}
	switch {
	case !p.spec.external():
		rec.Sandbox = protocol.PluginSandbox{Backend: "in-process", Enforcement: "none", Network: true, Writable: []string{}}
	case p.srv != nil:
		rec.Sandbox = p.srv.proc.Sandbox()
	default:
		pol, _ := p.policy("")
		rec.Sandbox = p.m.launcher.Describe(pol)
	}
	if p.unloaded {
		rec.State = protocol.PluginUnloaded
	}
	return rec
}
