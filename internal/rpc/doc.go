// Package rpc is the sidecar's JSON-RPC 2.0 connection to its host over
// stdio (SPEC §1, §2).
//
// # Layers
//
//   - stream.go: framing. One compact JSON object per line (default) or LSP
//     Content-Length headers (--framing=content-length). Oversized frames are
//     discarded and answered; writes are serialised and group-committed (one
//     write(2) for the frames queued meanwhile; a worker whose frame another
//     writer will write does not wait for it). What the read loop answers
//     itself is queued and written in one write(2) before its next read of
//     stdin or any wait. stdout carries frames only; logs go to stderr.
//   - frame.go: each frame is read once. json.Valid checks it, then one
//     scan of its top level (protocol.EachMember) finds the members (spans
//     of the frame, never copied) and decides what it is: request,
//     notification, response — or
//     what to answer: not JSON (-32700), batches, non-objects, bad ids,
//     non-string methods, scalar params (-32600). A host bug never ends the
//     session; only the end of its input does.
//   - conn.go: the read loop routes each frame; admit.go bounds what waiting
//     requests may hold (a queue behind the in-flight cap, then the reader
//     pauses, then -32003 busy).
//   - dispatcher.go: each admitted request runs in its own goroutine with
//     its own cancellable context, so a slow tool never blocks reading
//     cancellations or reverse-call replies. The one exception is
//     system.ping once the checks have settled (system.go): it cannot block
//     or be cancelled, so the read loop answers it, and the pings of one
//     read share one Health — a pipelined ping costs no goroutine hand-off,
//     context or write of its own.
//   - peer.go: the sidecar's own requests to the host.
//
// An earlier version ran on github.com/sourcegraph/jsonrpc2, which decoded
// every frame twice more after our checks, closed the connection on any
// frame it could not decode, ran handlers on its read loop and silently
// ended nothing when a reply to our request was malformed; what was left of
// it was the framing codec, so the connection is now this package's.
//
// # Requests
//
// Every method is in the table in methods.go. Params are checked against the
// method's JSON Schema in protocol/schema (-32602 with data.errors naming
// each JSON pointer), then decoded; tool.invoke, nearly every request, has a
// fast path (params.go) that checks and decodes in one pass and defers to
// the schema whenever it is unsure. A tool that runs and fails is a
// ToolResult, never a JSON-RPC error: errors are for the envelope. toWire
// (errors.go) is the one mapping from Go errors to wire errors; codes survive
// %w wrapping because protocol.Error compares by code. Replies are assembled
// around one encoding/json pass over the result (reply.go).
//
// # Cancellation and shutdown
//
// $/cancelRequest {id} cancels that request's context (a queued one is
// answered at once); it is answered -32800. system.shutdown and EOF stop
// accepting work, let in-flight calls finish for STEERABLE_SHUTDOWN_GRACE_MS,
// cancel the rest, send lifecycle.shutdown and return. system.shutdown_now
// and signals cancel everything at once. A request id already in flight is
// refused with -32600.
//
// # Reverse calls
//
// Peer sends the sidecar's own requests to the host with ids "srv_N" and
// implements tools.Host, a method per reverse request (host.go), each
// decoding the host's reply once into the type the tools take. A reverse call ends with the host's result, its
// error, a malformed-reply error (any reply carrying its id ends it),
// tools.ErrHostGone (no host, EOF, write failure) or the caller's context —
// never hangs. A response that matches no pending call is logged at warn
// with its id and dropped.
package rpc
