package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/tools"
	"steerable.dev/sidecar/protocol"
)

// view is what tools/list offers: the registry's model view for the
// strategy (SPEC §3), ask_user only when the client can elicit, plus the
// deferred tools tool_search has found this session. An MCP client calls
// only listed tools, so a match must join the list to be callable.
type view struct {
	strategy     string
	localNetwork bool
	results      string // Options.Results: the outputSchemas' shape
	log          zerolog.Logger

	mu       sync.Mutex
	unlocked map[string]bool
	last     []byte          // the list last answered, to tell a change from a no-op
	skipped  map[string]bool // tools left out for a schema MCP cannot carry, logged once
}

func newView(strategy string, localNetwork bool, log zerolog.Logger) (*view, error) {
	switch strategy {
	case "":
		strategy = protocol.StrategyFull
	case protocol.StrategyFull, protocol.StrategyMinimal, protocol.StrategyProgressive:
	default:
		return nil, fmt.Errorf("unknown strategy %q: use full, minimal or progressive", strategy)
	}
	return &view{strategy: strategy, localNetwork: localNetwork, log: log,
		unlocked: map[string]bool{}, skipped: map[string]bool{}}, nil
}

// list returns the tools to offer, sorted by name.
func (v *view) list(reg *tools.Registry, askUser bool) ([]*mcp.Tool, error) {
	descs, err := reg.List(protocol.ToolListParams{View: protocol.ViewModel, Strategy: v.strategy, AskUser: askUser})
	if err != nil {
		return nil, err
	}
	descs = append(descs, v.unlockedDescs(reg, descs)...)
	slices.SortFunc(descs, func(a, b protocol.ToolDescriptor) int { return strings.Compare(a.Name, b.Name) })
	out := make([]*mcp.Tool, 0, len(descs))
	for _, d := range descs {
		t, ok := toolOf(d, v.localNetwork, v.results)
		if !ok {
			v.skip(d)
			continue
		}
		out = append(out, t)
	}
	return out, nil
}

// unlockedDescs are the unlocked tools still registered in the deferred tier
// and not listed already; none unless the list offers tool_search.
func (v *view) unlockedDescs(reg *tools.Registry, listed []protocol.ToolDescriptor) []protocol.ToolDescriptor {
	if !slices.ContainsFunc(listed, func(d protocol.ToolDescriptor) bool { return d.Name == toolSearchName }) {
		return nil
	}
	v.mu.Lock()
	names := make([]string, 0, len(v.unlocked))
	for n := range v.unlocked {
		names = append(names, n)
	}
	v.mu.Unlock()
	var out []protocol.ToolDescriptor
	for _, n := range names {
		if e, ok := reg.Lookup(n); ok && e.Desc.Exposure == protocol.ExposureDeferred {
			out = append(out, e.Desc)
		}
	}
	return out
}

func (v *view) skip(d protocol.ToolDescriptor) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.skipped[d.Name] {
		v.skipped[d.Name] = true
		v.log.Warn().Str("tool", d.Name).Str("source", d.Source).
			Msg("tool left out of tools/list: MCP needs an object inputSchema ({\"type\":\"object\", …})")
	}
}

// unlock adds tool_search's matches; it reports whether any was new.
func (v *view) unlock(res protocol.ToolResult) bool {
	matches, _ := res.Data["matches"].([]tools.SearchMatch)
	v.mu.Lock()
	defer v.mu.Unlock()
	added := false
	for _, m := range matches {
		if !v.unlocked[m.Name] {
			v.unlocked[m.Name] = true
			added = true
		}
	}
	return added
}

// answered records the list sent to the client and reports whether it
// differs from the previous one.
func (v *view) answered(list []*mcp.Tool) bool {
	b, _ := json.Marshal(list)
	v.mu.Lock()
	defer v.mu.Unlock()
	changed := !bytes.Equal(b, v.last)
	v.last = b
	return changed
}

// differs reports whether list differs from the one last answered.
func (v *view) differs(list []*mcp.Tool) bool {
	b, _ := json.Marshal(list)
	v.mu.Lock()
	defer v.mu.Unlock()
	return !bytes.Equal(b, v.last)
}

// toolSearchName is the discovery tool whose results unlock tools.
const toolSearchName = "tool_search"

// listTools answers tools/list: every offered tool in one page.
func (s *Server) listTools(ctx context.Context, req *mcp.ListToolsRequest) (*mcp.ListToolsResult, error) {
	if req.Params != nil && req.Params.Cursor != "" {
		return nil, invalidParams("invalid cursor: this server lists every tool in one page and issues no cursors", nil)
	}
	t, err := s.ws.get(ctx)
	if err != nil {
		return nil, err
	}
	list, err := s.view.list(t.Registry, canElicit(req.Session))
	if err != nil {
		return nil, internalError(err.Error())
	}
	s.view.answered(list)
	return &mcp.ListToolsResult{Tools: list}, nil
}

// opened checks that the strategy can be served from t and follows the
// registry's changes (host tools, plugins coming and going) with
// list_changed.
func (s *Server) opened(t Tools) error {
	if _, err := s.view.list(t.Registry, false); err != nil {
		return err
	}
	s.observe.Do(func() {
		t.Registry.Observe(func(tools.Change) { s.toolsChanged(context.Background(), t.Registry) })
	})
	return nil
}

// toolsChanged tells every initialized session whose list changed.
func (s *Server) toolsChanged(ctx context.Context, reg *tools.Registry) {
	for ss := range s.sdk.Sessions() {
		if !s.isInitialized(ss) {
			continue // it lists after initialized anyway
		}
		list, err := s.view.list(reg, canElicit(ss))
		if err != nil || !s.view.differs(list) {
			continue
		}
		s.notifyListChanged(ctx, ss)
	}
}

// listChangedWait bounds sending one list_changed to a client that does not
// read.
const listChangedWait = 5 * time.Second

// notifyListChanged sends notifications/tools/list_changed through the
// SDK's sending handler (the SDK sends it itself only for its own tool
// table, which this server does not use).
func (s *Server) notifyListChanged(ctx context.Context, ss *mcp.ServerSession) {
	ctx, cancel := context.WithTimeout(ctx, listChangedWait)
	defer cancel()
	_, err := s.send(ctx, "notifications/tools/list_changed",
		&mcp.ServerRequest[*mcp.ToolListChangedParams]{Session: ss, Params: &mcp.ToolListChangedParams{}})
	if err != nil {
		s.log.Warn().Err(err).Msg("sending notifications/tools/list_changed failed")
	}
}
