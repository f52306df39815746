package sandbox

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
)

// Summary describes the selection for Health.checks.sandbox: the backend,
// its enforcement and network; its mode; the lifetime guarantee and the
// limits in force and what enforces each; what is denied; the
// configuration notes; and why each candidate was passed over.
func (s *Sandbox) Summary() string {
	s.waitSelected()
	parts := []string{fmt.Sprintf("backend %s, enforcement %s, network %s", s.info.Backend, s.info.Enforcement, onOff(s.info.Network))}
	if m, ok := s.backend.(moder); ok {
		parts = append(parts, "mode "+m.Mode())
	}
	parts = append(parts, "lifetime: "+s.lifetimeText(), "limits: "+s.limitsText())
	if s.info.Enforcement != EnforcementNone {
		parts = append(parts, s.denyText())
	}
	if s.opts.UnixSockets && !s.policy.Network {
		parts = append(parts, "UNIX sockets allowed (STEERABLE_SANDBOX_UNIX_SOCKETS=1)")
	}
	if runtime.GOOS == "windows" && s.backend.Name() == "none" {
		parts = append(parts, "Windows has no sandbox backend: commands run with the sidecar's rights, each call in a job object that ends its whole tree")
	}
	if s.shellErr != nil {
		parts = append(parts, "bash not registered: "+s.shellErr.Error())
	}
	parts = append(parts, s.opts.Notes...)
	parts = append(parts, s.exposed...)
	parts = append(parts, s.untrustedNotes()...)
	parts = append(parts, s.deny.notes...)
	if note := s.landlockNote(); note != "" {
		parts = append(parts, note)
	}
	if s.stale > 0 {
		parts = append(parts, fmt.Sprintf("removed %d session temp dirs of dead sidecars", s.stale))
	}
	if tried := attemptsText(s.attempts); tried != "" {
		parts = append(parts, "not usable: "+tried)
	}
	return strings.Join(parts, "; ")
}

// landlockNote says what Landlock's way of denying a path inside a
// writable root costs (landlockRules): commands cannot create, rename or
// remove entries directly in the directories that lead to it.
func (s *Sandbox) landlockNote() string {
	if s.backend.Name() != "landlock" || len(s.deny.inRoot) == 0 {
		return ""
	}
	var dirs []string
	for _, p := range s.deny.inRoot {
		root := innermostRoot(s.policy.WritableRoots, p)
		for _, d := range append([]string{root}, between(root, p)...) {
			if !slices.Contains(dirs, d) {
				dirs = append(dirs, d)
			}
		}
	}
	return "landlock cannot take a denied path out of a writable root, so the root is granted entry by entry: " +
		"commands cannot create, rename or remove entries directly in " + strings.Join(dirs, ", ") +
		" (the file tools can; bwrap has no such limit)"
}

func attemptsText(as []Attempt) string {
	var tried []string
	for _, a := range as {
		tried = append(tried, fmt.Sprintf("%s: %v", a.Backend, a.Err))
	}
	return strings.Join(tried, "; ")
}

func errorsText(errs []error) string {
	var texts []string
	for _, err := range errs {
		texts = append(texts, err.Error())
	}
	return strings.Join(texts, "; ")
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// lifetimeText says which mechanism ends a call's whole tree, and when.
func (s *Sandbox) lifetimeText() string {
	lt, text := s.launcher.Lifetime(), s.launcher.LifetimeText()
	if lt != LifetimePIDNamespace && s.backend.Name() == "bwrap" {
		text = "bwrap's pid namespace (every process of a call dies with it; a sidecar SIGKILLed in the first milliseconds of a call can leave that call running), " + text
	}
	if len(s.modeErrs) > 0 && lt != LifetimePIDNamespace {
		text += " [stronger modes failed: " + errorsText(s.modeErrs) + "]"
	}
	return text
}

// limitsText says which limits hold and what enforces each, and which
// cannot be enforced here and why.
func (s *Sandbox) limitsText() string {
	procs, _ := s.procsLimit()
	mem, _ := s.memoryLimit()
	text := procs + ", " + mem
	if tmp := s.tmpText(); tmp != "" {
		text += ", " + tmp
	}
	lim := s.policy.Limits
	if s.cgroupErr != nil && (lim.MaxProcs > 0 || lim.MaxMemoryBytes > 0) {
		text += " [no cgroup: " + s.cgroupErr.Error() + "]"
	}
	if note := s.launcher.CgroupNote(); note != "" {
		text += " [" + note + "]"
	}
	return text
}

// procsLimit says what enforces STEERABLE_SANDBOX_MAX_PROCS here; ok is
// false when it is set and nothing does.
func (s *Sandbox) procsLimit() (text string, ok bool) {
	return s.launcher.ProcsLimit(s.policy.Limits.perCall())
}

// memoryLimit says what enforces STEERABLE_SANDBOX_MAX_MEMORY_MB here; ok
// is false when it is set and nothing does.
func (s *Sandbox) memoryLimit() (text string, ok bool) {
	return s.launcher.MemoryLimit(s.policy.Limits.perCall())
}

// Unenforced lists the configured limits that nothing enforces here
// ("processes", "memory"); checks.sandbox then warns.
func (s *Sandbox) Unenforced() []string {
	s.waitSelected()
	var out []string
	if _, ok := s.procsLimit(); !ok {
		out = append(out, "processes")
	}
	if _, ok := s.memoryLimit(); !ok {
		out = append(out, "memory")
	}
	return out
}

// tmpText says how large a command's /tmp may grow: bwrap's private tmpfs
// is capped where bwrap can; under the other backends a command writes
// temp files only to the session temp dir (TMPDIR), on the host's file
// system, which no limit here bounds.
func (s *Sandbox) tmpText() string {
	b, ok := s.backend.(Bwrap)
	switch {
	case !ok:
		return "temp files not capped (the session temp dir, on the host's file system)"
	case s.policy.Limits.TmpBytes == 0:
		return "/tmp a tmpfs of the kernel's default size, half the RAM (STEERABLE_SANDBOX_TMP_MB=0)"
	case !b.tmpSize.supported(b.Path):
		return "/tmp a tmpfs not capped: this bwrap has no --size (bubblewrap 0.8.0 or later has it), so it gets the kernel's default, half the RAM"
	}
	return fmt.Sprintf("/tmp a %d MB tmpfs (STEERABLE_SANDBOX_TMP_MB)", s.policy.Limits.TmpBytes>>20)
}

func (s *Sandbox) denyText() string {
	if len(s.deny.present) == 0 {
		return fmt.Sprintf("deny-read: %d credential-store paths, none present", len(s.deny.paths))
	}
	return fmt.Sprintf("deny-read: %d credential-store paths, present: %s", len(s.deny.paths), strings.Join(s.deny.present, ", "))
}
