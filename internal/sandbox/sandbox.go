package sandbox

import (
	"context"
	"path/filepath"
	"runtime"
	"slices"
	"sync"

	"steerable.dev/sidecar/internal/sandbox/launch"
)

// Options configure Open; cmd fills them from the Config.
type Options struct {
	Choice      string // STEERABLE_SANDBOX: auto, bwrap, landlock, seatbelt or none
	Network     bool   // STEERABLE_SANDBOX_NETWORK
	UnixSockets bool   // STEERABLE_SANDBOX_UNIX_SOCKETS
	Require     bool   // STEERABLE_SANDBOX_REQUIRE
	Workspace   string // absolute, symlinks resolved
	TempParent  string // the system temp dir; the session temp dir goes below it
	Environ     []string
	Env         EnvRules    // STEERABLE_SANDBOX_ENV, STEERABLE_SANDBOX_ENV_PASS
	Deny        DenyOptions // $HOME, STEERABLE_SANDBOX_DENY_READ, STEERABLE_SANDBOX_ALLOW_READ
	Limits      Limits      // STEERABLE_SANDBOX_MAX_PROCS, STEERABLE_SANDBOX_MAX_MEMORY_MB
	BwrapPath   string      // STEERABLE_BWRAP_PATH
	BashPath    string      // STEERABLE_BASH_PATH
	// SessionDir, when set, gives the session temp dir, which the caller
	// creates meanwhile with NewSessionDir under TempParent (cmd starts it
	// with boot, so that a slow mkdir overlaps the rest of boot). Open does
	// not wait for it; what needs the dir does (TempDir, Env, Policy, Start,
	// the selection), and Close removes it. The caller must not serve when
	// it fails; Start then refuses every child.
	SessionDir func() (string, error)
	// Binaries are the paths the host may start the sidecar from again
	// (the running executable, the path it was invoked by); one in a
	// writable root is reported (binaries.go).
	Binaries []string
	// Self is the running binary for Landlock's re-exec mode; without a
	// File, Open opens /proc/self/exe.
	Self Self
	// Notes are configuration problems to report in Summary (a deny-list
	// entry that was not a path).
	Notes []string
	// DeferProbe: Open does not start the selection; StartProbe does, or
	// else the first method that needs its result. A server calls
	// StartProbe once its ready marker is out, so the probe's forks do not
	// compete with start-up for the CPU (about 1.5 ms here).
	DeferProbe bool
	// Backends, when set, replaces the platform's candidates for auto and
	// the named lookups (tests).
	Backends []Backend
	// launch, when set, changes how the launcher is set up (tests).
	launch launch.Setup
}

// Info is data._sandbox of every result of a sandboxed tool.
type Info struct {
	Backend     string
	Enforcement Enforcement
	Network     bool
	DenyRead    []string // the denied paths that exist
	Via         string   // "layer1" for the inherited posture
	EnvRemoved  int      // variables of the sidecar's environment the child does not get
}

// Map is Info as result data.
func (i Info) Map() map[string]any {
	deny := i.DenyRead
	if deny == nil {
		deny = []string{}
	}
	m := map[string]any{"backend": i.Backend, "enforcement": string(i.Enforcement), "network": i.Network, "denyRead": deny,
		"envRemoved": i.EnvRemoved}
	if i.Via != "" {
		m["via"] = i.Via
	}
	return m
}

// Inherited is the posture of a sidecar that the host already confines
// (STEERABLE_SIDECAR_CONFINED=1, SPEC §4.6): no layer-2 wrap, the child
// inherits the layer-1 boundary.
var Inherited = Info{Backend: "inherited", Enforcement: EnforcementPartial, Via: "layer1"}

// Attempt is one backend the selection tried and why it was not taken.
type Attempt struct {
	Backend string
	Err     error
}

// Sandbox is the session's selected backend, policy, launcher, temp dir
// and child environment. Its methods are safe for concurrent use.
//
// The selection (launch mode, cgroups, backend probes) runs in the
// background from Open (or, with DeferProbe, from StartProbe) on: start-up
// must not wait for it. Methods that depend on it (Info, Unavailable,
// Summary, Start, Run, Close) start it if need be and wait for it;
// Selected says whether it is done (and starts nothing).
type Sandbox struct {
	opts   Options
	policy Policy // set by resolvePolicy
	tmpDir func() (string, error)
	deny   denyList // set by resolvePolicy
	// exposed are notes of binaries in a writable root (resolvePolicy).
	exposed []string
	// workspaceDenied is the deny entry the workspace lies in, if any:
	// every child is then refused (the workspace is a credential store).
	workspaceDenied *DenyEntry
	launcher        *launch.Launcher

	// resolvePolicy resolves the deny list (some 90 lstats) and builds the
	// policy, once: the selection does it first, after the ready marker,
	// and Policy and Start wait for it.
	resolvePolicy func()

	probeCtx  context.Context // the selection's, from Open
	probeOnce sync.Once       // starts the selection
	selected  chan struct{}   // closed when the fields below are set

	backend     Backend
	info        Info
	attempts    []Attempt
	unavailable bool
	stale       int       // session temp dirs of dead sidecars removed at boot
	modeErrs    []error   // why each stronger launch mode failed
	probed      []Backend // closed by Close
	cgroupErr   error     // why no cgroup is used
	closeOnce   sync.Once
	shell       string // the bash tool's shell (findShell)
	shellErr    error
	trustMu     sync.Mutex
	untrusted   []string // the programs on PATH trusted passed over
	envMu       sync.Mutex
	envs        map[EnvPolicy]filteredEnv // Env's results
}

// Open creates the session temp dir and starts the selection (unless
// DeferProbe): the strongest launch mode that works here, the cgroups,
// and the backend — with auto the first candidate whose probe (a real
// confined run) passes;
// with a name, that backend if its probe passes, else every child is
// refused (ErrUnavailable: a named backend is never replaced by an
// unconfined run). Under auto with none passing the children run
// unconfined (backend none), unless Require. The error is non-nil only
// when the temp dir cannot be created.
func Open(ctx context.Context, opts Options) (*Sandbox, error) {
	tmpDir := opts.SessionDir
	if tmpDir == nil {
		tmp, err := launch.NewSessionDir(opts.TempParent)
		if err != nil {
			return nil, err
		}
		tmpDir = func() (string, error) { return tmp, nil }
	}
	s := &Sandbox{
		opts: opts, tmpDir: sync.OnceValues(tmpDir), probeCtx: ctx, selected: make(chan struct{}),
		launcher: launch.New(),
	}
	s.resolvePolicy = sync.OnceFunc(func() {
		roots := []string{opts.Workspace}
		if tmp := s.TempDir(); tmp != "" {
			roots = append(roots, tmp)
		}
		s.deny = resolveDenyList(opts.Deny, roots)
		s.workspaceDenied = DeniedWorkspace(s.deny.entries, opts.Workspace)
		s.exposed = exposedBinaries(opts.Binaries, roots)
		s.policy = Policy{WritableRoots: roots, Network: opts.Network, UnixSockets: opts.UnixSockets,
			DenyRead: s.deny.paths, Limits: opts.Limits}.normalized()
	})
	if s.opts.Self.File == nil {
		s.opts.Self = OpenSelf("steerable-sidecar")
	}
	s.shell, s.shellErr = findShell(opts.BashPath, s.trusted)
	if !opts.DeferProbe {
		s.StartProbe()
	}
	return s, nil
}

// StartProbe starts the selection unless it has started.
func (s *Sandbox) StartProbe() {
	s.probeOnce.Do(func() { go s.selectBackend(s.probeCtx) })
}

// waitSelected starts the selection if need be and waits for it.
func (s *Sandbox) waitSelected() {
	s.StartProbe()
	<-s.selected
}

// selectBackend picks the launch mode, opens the cgroups and probes the
// candidates in order, keeping the first that passes.
func (s *Sandbox) selectBackend(ctx context.Context) {
	defer close(s.selected)
	s.resolvePolicy()
	truePath, trueErr := s.trusted("true")
	s.modeErrs, s.cgroupErr = s.launcher.Open(s.opts.launch, truePath, trueErr)
	s.stale = launch.RemoveStaleSessionDirs(s.opts.TempParent)
	tmp, tmpErr := s.tmpDir()
	for _, b := range s.candidates() {
		err := b.Available()
		if tmpErr != nil {
			err = tmpErr // no child starts (Start): nothing to probe
		}
		if err == nil {
			s.probed = append(s.probed, b)
			err = Probe(ctx, s.launcher, b, s.policy, s.probeShell(), tmp, s.opts.TempParent, "/var/tmp", filepath.Dir(s.opts.Workspace))
		}
		if err == nil {
			s.backend = b
			if w, ok := b.(interface{ warm(Policy) }); ok {
				w.warm(s.policy)
			}
			break
		}
		s.attempts = append(s.attempts, Attempt{Backend: b.Name() + modeSuffix(b), Err: err})
	}
	if s.backend == nil {
		s.backend = None{}
		s.unavailable = s.opts.Require || s.named()
	}
	if e := s.workspaceDenied; e != nil {
		s.unavailable = true
		s.attempts = append(s.attempts, Attempt{Backend: "every backend", Err: WorkspaceDeniedError(s.opts.Workspace, *e)})
	}
	s.info = Info{Backend: s.backend.Name(), Enforcement: s.backend.Enforcement(s.policy), Network: s.policy.Network,
		DenyRead: s.deny.present}
	if s.info.Enforcement == EnforcementNone {
		s.info.Network = true // nothing stops it
		s.info.DenyRead = []string{}
	}
}

// named reports whether STEERABLE_SANDBOX names a confining backend.
func (s *Sandbox) named() bool {
	return s.opts.Choice != "auto" && s.opts.Choice != "none" && s.opts.Choice != ""
}

// Selected is closed once the backend is selected. It does not start a
// deferred selection: a health check may look without causing the probe.
func (s *Sandbox) Selected() <-chan struct{} { return s.selected }

// candidates are the backends Open tries, in order (SPEC §4.2: auto tries
// bwrap, then landlock on Linux, seatbelt on macOS), each backend with more
// than one mode once per mode.
func (s *Sandbox) candidates() []Backend {
	all := s.opts.Backends
	if all == nil {
		all = []Backend{newBwrapIn(s.opts.BwrapPath, s.trustRoots()), NewLandlock(s.opts.Self), NewSeatbelt()}
	}
	var out []Backend
	for _, b := range all {
		if b.Name() == "none" {
			continue // the fallback, never probed
		}
		if s.opts.Choice == b.Name() || (s.opts.Choice == "auto" && autoFits(b.Name())) {
			if m, ok := b.(moder); ok {
				out = append(out, m.Modes()...)
			} else {
				out = append(out, b)
			}
		}
	}
	return out
}

func autoFits(name string) bool {
	switch runtime.GOOS {
	case "darwin":
		return name == "seatbelt"
	case "windows":
		return false // no backend confines a process on Windows
	}
	return name == "bwrap" || name == "landlock"
}

func modeSuffix(b Backend) string {
	if m, ok := b.(moder); ok {
		return " (" + m.Mode() + ")"
	}
	return ""
}

// Info is what the session's children run under; EnvRemoved counts what
// EnvScrubbed drops (run_code's allowlist drops more: EnvRemoved).
func (s *Sandbox) Info() Info {
	s.waitSelected()
	info := s.info
	info.EnvRemoved = s.EnvRemoved(EnvScrubbed)
	return info
}

// Unavailable reports whether every child is refused (ErrUnavailable):
// the named backend does not work here, or none does and the sandbox is
// required.
func (s *Sandbox) Unavailable() bool {
	s.waitSelected()
	return s.unavailable
}

// Shell is the shell the bash tool runs (STEERABLE_BASH_PATH, else the
// platform's; see shell.go), or why there is none: the tool is then not
// registered.
func (s *Sandbox) Shell() (string, error) { return s.shell, s.shellErr }

// TempDir is the session temp dir ("" if it could not be created).
func (s *Sandbox) TempDir() string {
	dir, _ := s.tmpDir()
	return dir
}

// Policy is the session's policy. A Command may carry a policy derived
// from it (Policy.WithWritable, Policy.WithNetwork).
func (s *Sandbox) Policy() Policy {
	s.resolvePolicy()
	return s.policy
}

// DenyEntries is the session's deny list, resolved (the file tools refuse
// the same paths the children cannot read: files.WithDeny).
func (s *Sandbox) DenyEntries() []DenyEntry {
	s.resolvePolicy()
	return slices.Clone(s.deny.entries)
}

// Lifetime is the guarantee that ends a child's whole tree here.
func (s *Sandbox) Lifetime() Lifetime {
	s.waitSelected()
	return s.launcher.Lifetime()
}

// Env is the environment of a child under policy: the sidecar's, filtered
// (EnvRules), with TMPDIR, TEMP and TMP pointing at the session temp dir.
// The session's environment does not change, so each policy's is computed
// once (the scrub looks at every value); every caller gets a copy of its
// own.
func (s *Sandbox) Env(policy EnvPolicy) []string {
	return slices.Clone(s.childEnv(policy).env)
}

// EnvRemoved is how many variables of the sidecar's environment a child
// under policy does not get (data._sandbox.envRemoved; never their names
// or values).
func (s *Sandbox) EnvRemoved(policy EnvPolicy) int { return s.childEnv(policy).removed }

// childEnv computes policy's environment once.
func (s *Sandbox) childEnv(policy EnvPolicy) filteredEnv {
	s.envMu.Lock()
	defer s.envMu.Unlock()
	fe, ok := s.envs[policy]
	if !ok {
		env, dropped := s.opts.Env.Filter(policy, s.opts.Environ)
		for _, name := range []string{"TMPDIR", "TEMP", "TMP"} {
			env = setEnv(env, name, s.TempDir())
		}
		fe = filteredEnv{env: env, removed: len(dropped)}
		if s.envs == nil {
			s.envs = map[EnvPolicy]filteredEnv{}
		}
		s.envs[policy] = fe
	}
	return fe
}

// filteredEnv is one policy's environment and how many variables it drops.
type filteredEnv struct {
	env     []string
	removed int
}

// Scrubbed lists the names (never the values) EnvScrubbed drops from the
// sidecar's environment, for a debug log line at boot.
func (s *Sandbox) Scrubbed() []string {
	_, dropped := s.opts.Env.Filter(EnvScrubbed, s.opts.Environ)
	return dropped
}

// Close kills every child still running (and, with the subreaper
// fallback, their escapees), then removes the session's cgroups and temp
// dir.
func (s *Sandbox) Close() error {
	s.waitSelected()
	s.closeOnce.Do(s.release)
	dir, err := s.tmpDir()
	if err != nil {
		return nil // nothing was created
	}
	return launch.RemoveTree(dir)
}

func (s *Sandbox) release() {
	s.launcher.Close()
	for _, b := range s.probed {
		if l, ok := b.(Landlock); ok {
			l.close()
		}
	}
	if s.opts.Self.File != nil {
		s.opts.Self.File.Close()
	}
}
