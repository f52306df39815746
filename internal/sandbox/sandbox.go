package sandbox

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Options configure Open; cmd fills them from the Config.
type Options struct {
	Choice     string // STEERABLE_SANDBOX: auto, bwrap, landlock, seatbelt or none
	Network    bool   // STEERABLE_SANDBOX_NETWORK
	Require    bool   // STEERABLE_SANDBOX_REQUIRE
	Workspace  string // absolute, symlinks resolved
	TempParent string // the system temp dir; the session temp dir goes below it
	Environ    []string
	Self       Self // how the Landlock backend re-executes this binary
	// Backends, when set, replaces the platform's candidates for auto and
	// the named lookups (tests).
	Backends []Backend
}

// Info is data._sandbox of every result of a sandboxed tool.
type Info struct {
	Backend     string
	Enforcement Enforcement
	Network     bool
	Via         string // "layer1" for the inherited posture
}

// Map is Info as result data.
func (i Info) Map() map[string]any {
	m := map[string]any{"backend": i.Backend, "enforcement": string(i.Enforcement), "network": i.Network}
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

// Sandbox is the session's selected backend, policy, temp dir and child
// environment. Its methods are safe for concurrent use.
//
// The selection probe runs in the background from Open on: a real confined
// run takes milliseconds (bwrap) and start-up must not wait for it. Methods
// that depend on the selection (Info, Unavailable, Summary, Command) wait
// for it; Selected says whether it is done.
type Sandbox struct {
	policy   Policy
	tmpDir   string
	environ  []string
	selected chan struct{} // closed when the fields below are set

	backend     Backend
	info        Info
	attempts    []Attempt
	unavailable bool
}

// Open creates the session temp dir and selects the backend: with auto the
// first candidate whose probe (a real confined run) passes; with a name,
// that backend if its probe passes. When none passes the children run
// unconfined (backend none), unless Require, in which case Command fails
// with ErrUnavailable. The error is non-nil only when the temp dir cannot be
// created.
func Open(ctx context.Context, opts Options) (*Sandbox, error) {
	tmp, err := NewSessionDir(opts.TempParent)
	if err != nil {
		return nil, err
	}
	s := &Sandbox{
		policy:   Policy{WritableRoots: []string{opts.Workspace, tmp}, Network: opts.Network}.normalized(),
		tmpDir:   tmp,
		environ:  opts.Environ,
		selected: make(chan struct{}),
	}
	go s.selectBackend(ctx, opts)
	return s, nil
}

// selectBackend probes the candidates in order and keeps the first that
// passes.
func (s *Sandbox) selectBackend(ctx context.Context, opts Options) {
	defer close(s.selected)
	for _, b := range candidates(opts) {
		err := b.Available()
		if err == nil {
			err = Probe(ctx, b, s.policy, s.tmpDir, opts.TempParent, "/var/tmp", filepath.Dir(opts.Workspace))
		}
		if err == nil {
			s.backend = b
			break
		}
		s.attempts = append(s.attempts, Attempt{Backend: b.Name(), Err: err})
	}
	if s.backend == nil {
		s.backend = None{}
		s.unavailable = opts.Require
	}
	s.info = Info{Backend: s.backend.Name(), Enforcement: s.backend.Enforcement(s.policy), Network: s.policy.Network}
	if s.info.Enforcement == EnforcementNone {
		s.info.Network = true // nothing stops it
	}
}

// Selected is closed once the backend is selected.
func (s *Sandbox) Selected() <-chan struct{} { return s.selected }

// candidates are the backends Open tries, in order (SPEC §4.2: auto tries
// bwrap, then landlock on Linux, seatbelt on macOS).
func candidates(opts Options) []Backend {
	all := opts.Backends
	if all == nil {
		all = []Backend{NewBwrap(), NewLandlock(opts.Self), NewSeatbelt()}
	}
	var out []Backend
	for _, b := range all {
		switch {
		case opts.Choice == "none":
		case opts.Choice == b.Name():
			out = append(out, b)
		case opts.Choice == "auto" && autoFits(b.Name()):
			out = append(out, b)
		}
	}
	return out
}

func autoFits(name string) bool {
	if runtime.GOOS == "darwin" {
		return name == "seatbelt"
	}
	return name == "bwrap" || name == "landlock"
}

// Info is what the session's children run under.
func (s *Sandbox) Info() Info {
	<-s.selected
	return s.info
}

// Unavailable reports whether Command refuses every child because no
// backend works and the sandbox is required.
func (s *Sandbox) Unavailable() bool {
	<-s.selected
	return s.unavailable
}

// TempDir is the session temp dir.
func (s *Sandbox) TempDir() string { return s.tmpDir }

// Policy is the policy children run under.
func (s *Sandbox) Policy() Policy { return s.policy }

// Summary describes the selection for Health.checks.sandbox: the backend
// and its enforcement, or why each candidate was passed over.
func (s *Sandbox) Summary() string {
	<-s.selected
	var tried []string
	for _, a := range s.attempts {
		tried = append(tried, fmt.Sprintf("%s: %v", a.Backend, a.Err))
	}
	msg := fmt.Sprintf("backend %s, enforcement %s, network %s", s.info.Backend, s.info.Enforcement, onOff(s.info.Network))
	if len(tried) > 0 {
		msg += "; not usable: " + strings.Join(tried, "; ")
	}
	return msg
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// Env is the environment of a child under policy: the sidecar's, filtered,
// with TMPDIR, TEMP and TMP pointing at the session temp dir.
func (s *Sandbox) Env(policy EnvPolicy) []string {
	env := policy.Filter(s.environ)
	for _, name := range []string{"TMPDIR", "TEMP", "TMP"} {
		env = setEnv(env, name, s.tmpDir)
	}
	return env
}

// Command returns the confined command for argv, started in dir with env.
// argv[0] is resolved on PATH when it is not absolute. Start it with Start
// or Run, which put it in its own process group.
func (s *Sandbox) Command(argv []string, dir string, env []string) (*exec.Cmd, error) {
	if s.Unavailable() {
		return nil, ErrUnavailable
	}
	if len(argv) == 0 {
		return nil, ErrNoCommand
	}
	path := argv[0]
	if !filepath.IsAbs(path) {
		var err error
		if path, err = exec.LookPath(path); err != nil {
			return nil, err
		}
	}
	w, err := s.backend.Wrap(Cmd{Path: path, Args: argv, Dir: dir, Env: env}, s.policy)
	if err != nil {
		return nil, err
	}
	return &exec.Cmd{Path: w.Path, Args: w.Args, Dir: w.Dir, Env: w.Env}, nil
}

// Close removes the session temp dir (after the probe, which uses it).
func (s *Sandbox) Close() error {
	<-s.selected
	return removeTree(s.tmpDir)
}
