package lsp

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"steerable.dev/sidecar/internal/clip"
)

// Diagnostic is one error or warning as the model sees it: a
// workspace-relative file and 1-based line and column.
type Diagnostic struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	Source   string `json:"source,omitempty"`
}

// Report is the diagnostics of the files one change touched.
type Report struct {
	Items []Diagnostic `json:"items"`
	// New counts the items that were not there before the change (by
	// message, severity and source: an unchanged error that moved down a
	// line is not new).
	New int `json:"new"`
	// Pending: the wait ran out before the server published for every
	// file; Items are what it had said so far.
	Pending   bool `json:"pending,omitempty"`
	Truncated bool `json:"truncated,omitempty"`
	// Error says why a server that covers the files gave nothing (it
	// failed to start).
	Error string `json:"error,omitempty"`
}

// Limits on what one report carries.
const (
	maxDiagnostics   = 50
	maxMessageLength = 500
)

// published is the latest publishDiagnostics for one document.
type published struct {
	version int32 // 0: the server sent none
	seq     uint64
	at      time.Time
	diags   []protocol.Diagnostic
}

// diagStore keeps the latest diagnostics per document: a publish replaces
// the previous one, so a chatty server costs a map entry per file, never a
// queue. Waiters are woken by closing and replacing a channel.
type diagStore struct {
	mu      sync.Mutex
	seq     uint64
	byURI   map[protocol.DocumentURI]published
	changed chan struct{}
}

func newDiagStore() *diagStore {
	return &diagStore{byURI: map[protocol.DocumentURI]published{}, changed: make(chan struct{})}
}

// maxDocuments bounds the store: a server publishing for every file of a
// huge workspace keeps the newest entries.
const maxDocuments = 2000

func (s *diagStore) publish(p protocol.PublishDiagnosticsParams) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	if _, ok := s.byURI[p.URI]; !ok && len(s.byURI) >= maxDocuments {
		s.evictOldest()
	}
	s.byURI[p.URI] = published{version: int32(p.Version), seq: s.seq, at: time.Now(), diags: p.Diagnostics}
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *diagStore) evictOldest() {
	var oldest protocol.DocumentURI
	var min uint64 = ^uint64(0)
	for u, p := range s.byURI {
		if p.seq < min {
			oldest, min = u, p.seq
		}
	}
	delete(s.byURI, oldest)
}

// get returns the latest publish for uri and the channel closed by the
// next one.
func (s *diagStore) get(uri protocol.DocumentURI) (published, bool, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.byURI[uri]
	return p, ok, s.changed
}

// mark is the store's sequence number now: a publish after it is newer.
func (s *diagStore) mark() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seq
}

// all returns every document's latest diagnostics.
func (s *diagStore) all() map[protocol.DocumentURI][]protocol.Diagnostic {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[protocol.DocumentURI][]protocol.Diagnostic, len(s.byURI))
	for u, p := range s.byURI {
		out[u] = p.diags
	}
	return out
}

// waitFor waits until the server has published for uri after mark — for
// version when the server versions its publishes — and then settle passed
// without another publish for it. It returns the diagnostics and whether
// they are final (false: ctx ran out first).
//
// A server without versions that publishes nothing when a change leaves
// the diagnostics as they were (typescript-language-server skips an empty
// set that stays empty) would hold every such edit for the whole wait: for
// those (settle > 0), silence for noPublishGrace settles periods means the
// diagnostics it holds are current.
func (s *diagStore) waitFor(ctx context.Context, uri protocol.DocumentURI, version int32, mark uint64, settle time.Duration) ([]protocol.Diagnostic, bool) {
	start := time.Now()
	for {
		p, ok, changed := s.get(uri)
		fresh := ok && p.seq > mark && (p.version == 0 || p.version >= version)
		if fresh {
			quiet := settle - time.Since(p.at)
			if quiet <= 0 {
				return p.diags, true
			}
			t := time.NewTimer(quiet)
			select {
			case <-t.C:
				continue
			case <-changed:
				t.Stop()
				continue
			case <-ctx.Done():
				t.Stop()
				return p.diags, false
			}
		}
		silence := make(<-chan time.Time)
		if settle > 0 {
			t := time.NewTimer(noPublishGrace*settle - time.Since(start))
			silence = t.C
			defer t.Stop()
		}
		select {
		case <-changed:
		case <-silence:
			return p.diags, true
		case <-ctx.Done():
			return p.diags, false
		}
	}
}

// noPublishGrace is how many settle periods of silence after a change mean
// a version-less server has nothing new to say.
const noPublishGrace = 3

// severityName names an LSP severity; 0 (unset) counts as an error.
func severityName(s protocol.DiagnosticSeverity) string {
	switch s {
	case protocol.DiagnosticSeverityWarning:
		return "warning"
	case protocol.DiagnosticSeverityInformation:
		return "info"
	case protocol.DiagnosticSeverityHint:
		return "hint"
	}
	return "error"
}

// relevant keeps errors and warnings: hints and information ("unused
// parameter could be _") are noise after an edit.
func relevant(d protocol.Diagnostic) bool {
	return d.Severity == 0 || d.Severity <= protocol.DiagnosticSeverityWarning
}

// diagKey identifies a diagnostic across a change that moves lines.
func diagKey(d protocol.Diagnostic) string {
	return severityName(d.Severity) + "\x00" + d.Source + "\x00" + d.Message
}

// countNew counts the after diagnostics not in before, as multisets.
func countNew(before, after []protocol.Diagnostic) int {
	seen := map[string]int{}
	for _, d := range before {
		if relevant(d) {
			seen[diagKey(d)]++
		}
	}
	n := 0
	for _, d := range after {
		if !relevant(d) {
			continue
		}
		k := diagKey(d)
		if seen[k] > 0 {
			seen[k]--
			continue
		}
		n++
	}
	return n
}

// view turns a document's diagnostics into the model's, errors first then
// by position.
func view(file string, lines []string, diags []protocol.Diagnostic) []Diagnostic {
	out := []Diagnostic{}
	for _, d := range diags {
		if !relevant(d) {
			continue
		}
		line := int(d.Range.Start.Line)
		col := int(d.Range.Start.Character) + 1
		if line < len(lines) {
			col = byteColumn(lines[line], int(d.Range.Start.Character)) + 1
		}
		out = append(out, Diagnostic{File: file, Line: line + 1, Column: col, Severity: severityName(d.Severity),
			Message: clip.Short(d.Message, maxMessageLength), Source: d.Source})
	}
	sortDiagnostics(out)
	return out
}

func sortDiagnostics(ds []Diagnostic) {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if a.Severity != b.Severity {
			return a.Severity == "error"
		}
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
}

// Summary is the sentence a file tool appends to its result's message.
func (r *Report) Summary() string {
	errs := 0
	for _, it := range r.Items {
		if it.Severity == "error" {
			errs++
		}
	}
	var b strings.Builder
	switch {
	case len(r.Items) == 0 && r.Error != "":
		return " No diagnostics: " + r.Error + "."
	case len(r.Items) == 0 && r.Pending:
		return " The language server had not reported diagnostics yet (pending)."
	case len(r.Items) == 0:
		return " No errors or warnings from the language server."
	}
	fmt.Fprintf(&b, " Language server: %d error(s), %d warning(s), %d new", errs, len(r.Items)-errs, r.New)
	if r.Pending {
		b.WriteString(" (still checking)")
	}
	first := r.Items[0]
	fmt.Fprintf(&b, "; first: %s:%d:%d %s.", first.File, first.Line, first.Column, strings.TrimSuffix(first.Message, "."))
	return b.String()
}
