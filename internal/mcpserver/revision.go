package mcpserver

import (
	"context"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// This file holds every use of the roots and logging features, which the
// 2026-07-28 revision of MCP deprecates (SEP-2577: "migrate to passing
// paths via … configuration"; "consume stderr output"). Clients of the
// earlier revisions use them, so the server keeps them — for those
// clients only, and never as the only way: the workspace has a source
// without roots, and every message sent as an MCP log message is on
// stderr first (package doc, "The 2026-07-28 revision"). Dropping them,
// once the SDK does, is deleting this file and its callers' branches.

// nextRevision is the MCP revision that deprecates roots and logging and
// forbids server-initiated requests.
const nextRevision = "2026-07-28"

// handshakeVersions are the protocol versions the server negotiates: the
// SDK's, up to the revision before nextRevision. Serving nextRevision
// itself needs elicitation as InputRequests (SEP-2322), not as
// server-initiated requests; until then a client of that revision is
// answered as one of 2025-11-25.
func handshakeVersions() []string {
	return slices.DeleteFunc(mcp.SupportedProtocolVersions(), func(v string) bool { return v >= nextRevision })
}

// withRootsAndLogging adds to o what clients before nextRevision may use:
// notifications/roots/list_changed, and the logging capability (for
// logging/setLevel and notifications/message).
func withRootsAndLogging(s *Server, o *mcp.ServerOptions) *mcp.ServerOptions {
	//lint:ignore SA1019 roots are the workspace of clients before 2026-07-28 that send them (revision.go)
	o.RootsListChangedHandler = s.onRootsChanged
	//lint:ignore SA1019 logging/setLevel stays for clients before 2026-07-28; every message is on stderr too
	o.Capabilities.Logging = &mcp.LoggingCapabilities{}
	return o
}

// hasRoots reports whether the workspace may come from the client's
// roots: it declared the roots capability, and asked for a revision
// before nextRevision. A client of nextRevision that still declares roots
// is not asked for them (the SDK would refuse the request): its workspace
// is the configured one or the directory it started the server in.
func hasRoots(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	//lint:ignore SA1019 the roots capability of clients before 2026-07-28 (revision.go)
	return p != nil && p.Capabilities != nil && p.Capabilities.RootsV2 != nil && p.ProtocolVersion < nextRevision
}

// listRoots asks the client for its roots (roots/list): their URIs, in the
// client's order.
func listRoots(ctx context.Context, ss *mcp.ServerSession) ([]string, error) {
	//lint:ignore SA1019 roots/list for clients before 2026-07-28 that declared roots (hasRoots)
	res, err := ss.ListRoots(ctx, nil)
	if err != nil {
		return nil, err
	}
	uris := make([]string, 0, len(res.Roots))
	for _, r := range res.Roots {
		uris = append(uris, r.URI)
	}
	return uris, nil
}

// logToClient copies a message the log has on stderr to the client as an
// MCP log message; the SDK sends it only to a client that asked with
// logging/setLevel, which clients of nextRevision do not.
func logToClient(ss *mcp.ServerSession, level, msg string) {
	//lint:ignore SA1019 notifications/message for clients before 2026-07-28 that set a level; stderr has the message
	_ = ss.Log(context.Background(), &mcp.LoggingMessageParams{Level: mcp.LoggingLevel(level), Logger: "steerable-sidecar", Data: msg})
}
