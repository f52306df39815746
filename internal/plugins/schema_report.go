package plugins

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"steerable.dev/sidecar/internal/clip"
)

// schemaReport is what is wrong with the schemas of one registration of a
// plugin's tools: found by the background compile, or by a call that got
// to a tool first. A new registration starts a new report.
type schemaReport struct {
	plugin string
	mu     sync.Mutex
	bad    []string // "tool X: invalid parameters schema: …", at most maxSchemaProblems
	more   int
}

// maxSchemaProblems bounds what a plugin's record says about its schemas.
const maxSchemaProblems = 5

// add records a problem once.
func (r *schemaReport) add(problem string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case slices.Contains(r.bad, problem):
	case len(r.bad) < maxSchemaProblems:
		r.bad = append(r.bad, problem)
	default:
		r.more++
	}
}

// String is the report for plugin.list and checks.plugins ("" when
// nothing is wrong, or nothing found yet).
func (r *schemaReport) String() string {
	if r == nil {
		return ""
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.bad) == 0 {
		return ""
	}
	list := strings.Join(r.bad, "; ")
	if r.more > 0 {
		list += fmt.Sprintf("; and %d more", r.more)
	}
	return fmt.Sprintf("%d of its tools cannot be called, their parameters schemas do not compile: %s; fix the plugin, then plugin.reload {\"name\":%q}",
		len(r.bad)+r.more, list, r.plugin)
}

// compileLater compiles, in the background, the schemas of the tools just
// registered (names) through the registry's entries — each compiles once,
// here or on its first call, whichever comes first — into the report.
// Close waits for it, and a closed manager ends it early.
func (m *Manager) compileLater(report *schemaReport, names []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	m.bg.Go(func() {
		found := false
		for _, n := range names {
			if m.ctx.Err() != nil {
				return
			}
			if e, ok := m.reg.Lookup(n); ok {
				if _, err := e.Schema(); err != nil {
					report.add(clip.Within(err.Error(), 500))
					found = true
				}
			}
		}
		if found {
			log := m.logFor(report.plugin)
			log.Error().Str("problems", report.String()).Msg("plugin tools whose schemas do not compile answer errors until plugin.reload")
		}
	})
}
