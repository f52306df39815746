// Package mcpserver serves the sidecar's tools to any Model Context Protocol
// client (Claude Desktop, VS Code, Cursor, custom agents) over stdio, built on
// the official Go SDK (github.com/modelcontextprotocol/go-sdk/mcp).
//
// # One code path
//
// The server holds no tool of its own. tools/list is the registry's model
// view (tools.Registry.List, SPEC §3) and tools/call is the one dispatch
// pipeline (tools.Dispatcher: validation, approval, sandbox, read state),
// the same as `serve`'s tool.invoke. Whatever registers in the registry —
// built-ins, host tools, plugin tools — is served, and a registry change
// that alters the list sends notifications/tools/list_changed. The SDK's own
// tool table stays empty: a receiving middleware answers tools/list and
// tools/call, and list_changed goes out through the SDK's sending handler.
//
// # Mappings
//
//   - tools/list: name, title, description, inputSchema (an object schema:
//     "type":"object" is made explicit; a tool whose schema is another type
//     is left out and logged) and annotations from the mode
//     (annotations.go), and for each built-in tool an outputSchema of its
//     structuredContent in the results shape (outputschema/<tool>.json,
//     outputschema.go). ask_user is listed only for a client that declared
//     elicitation. With a strategy that offers tool_search (full,
//     progressive), its matches join the list for the rest of the session:
//     an MCP client calls only listed tools.
//   - tools/call: the ToolResult's message (or error) is the first text
//     block, data is structuredContent and, serialised, a second text
//     block; success:false is isError:true; needsFollowup, terminal and
//     nextAction travel in _meta["steerable.dev/toolResult"]. With Results
//     "model" (STEERABLE_MCP_RESULTS' default) a built-in's success is
//     instead its text form, with structuredContent without the fields the
//     text carries (modeltext.go). An error of a tool with an outputSchema
//     has no structuredContent (its data stays in the JSON text): the
//     TypeScript SDK client validates an error's too, and would throw
//     instead of showing the model the error. An unknown tool is -32602
//     (MCP: a protocol error), with the closest names.
//   - notifications/cancelled cancels the call's context: a shell's process
//     group is killed exactly as on $/cancelRequest. The cancelled request
//     gets no reply (MCP: the receiver SHOULD NOT respond).
//   - tool.progress becomes notifications/progress when the call carried a
//     progress token: the chunk as message, bytes so far as progress.
//   - ask_user.request and approval.request become elicitation/create
//     (elicit.go); a client without elicitation gets no question: ask_user
//     records cancelled, an approval is denied (fail closed). tool.invoke
//     and web_search.request have no MCP counterpart and fail with
//     tools.ErrHostGone.
//
// # Workspace and roots
//
// With a workspace fixed by configuration the tools open at once and roots
// are ignored. Otherwise, for a client that declares roots (and is before
// the 2026-07-28 revision, below), the workspace is the client's first
// file:// root that Options.CheckRoot accepts, asked with roots/list after
// notifications/initialized: a root must not widen the sandbox, so cmd
// refuses /, a credential store or a directory inside one, and a directory
// holding a whole home while the deny list is empty. Each refusal is
// logged and sent as an MCP log message saying which roots are acceptable;
// when every root is refused, tools/list and tools/call fail with the
// refusals (never a fallback to the process cwd). The read state and
// the sandbox belong to that directory: a roots/list_changed whose first
// acceptable root is elsewhere makes every later tools/call an isError refusal naming
// the fix (restart the server, move the root back, or --cwd), logged on
// stderr and sent as an MCP log message; calls resume if the root comes
// back.
//
// # Framing and bad input
//
// The SDK's stdio transport ends the session on a line it cannot decode.
// StreamTransport (conn.go, message.go) reads and writes through
// internal/wire, serve mode's framing, envelope rules and bounded writer,
// and hands the SDK only what wire accepted: not JSON -32700, batches,
// non-objects, bad ids, scalar params -32600, answered by the connection,
// which reads on. An oversized line is answered -32600 with its own id
// whenever wire can read it from the line's head or end (null otherwise),
// naming STEERABLE_MAX_FRAME_BYTES, so the client's call ends. The SDK's
// plain errors for protocol misuse (a call before initialize, a second
// initialize), which it would send with code 0, are -32600. On EOF,
// in-flight calls may finish for the grace period.
//
// Output is bounded (STEERABLE_MAX_OUTPUT_QUEUE_BYTES): for a client that
// stops reading, replies wait for room, the server's requests and
// notifications wait as long as their context, and progress notifications
// are dropped.
//
// # The direct path
//
// Through a StreamTransport, a tools/call of an initialized session is
// decoded, run and answered by the connection itself (direct.go), with the
// same handler the SDK would call: the SDK's per-call params decodings
// (two 32 KiB buffers each), goroutines and result re-validation were most
// of the server's CPU under load. Anything unusual (a malformed call, a
// call before notifications/initialized, the sessionless protocol's _meta)
// stays the SDK's. Replies that finish while another is being written go
// out together in the next write (wire.Writer).
//
// # Protocol versions and the 2026-07-28 revision
//
// The server negotiates the SDK's handshake versions (2024-11-05 through
// 2025-11-25). The 2026-07-28 revision deprecates roots and logging
// (SEP-2577) and forbids server-initiated requests; the server plans for
// it so (revision.go holds every use of the deprecated features):
//
//   - Negotiation: a client that asks for 2026-07-28 in initialize is
//     answered with 2025-11-25; a sessionless request (SEP-2575 _meta) is
//     refused as an unsupported version, naming the supported ones, so a
//     client that also speaks 2025-11-25 initializes with it.
//   - Workspace: --cwd, else STEERABLE_WORKSPACE, else — for a client before
//     2026-07-28 that declares roots — its first acceptable root, else the
//     directory the client started the server in (never the filesystem
//     root). A client that asked for 2026-07-28, or declares no roots, is
//     never sent roots/list: configuration or its start directory is the
//     workspace, as the revision asks ("pass paths via configuration").
//   - Logs: everything goes to stderr (zerolog, --log-level), as the
//     revision asks of stdio servers. An MCP log message
//     (notifications/message) is only a copy, for a client before
//     2026-07-28 that asked with logging/setLevel; a refusal the model must
//     see is in the tool result itself.
//   - Elicitation: a client that asked for 2026-07-28 is served as one
//     without elicitation (ask_user not listed, approvals denied) until the
//     server sends questions as InputRequests (SEP-2322).
//
// Clients before 2026-07-28 keep today's behaviour. Once the SDK drops
// roots and logging, revision.go and its callers' branches go.
//
// A Server serves one session: its read state, unlocked tools and
// workspace belong to one client, as one sidecar process serves one agent.
package mcpserver
