// Package rpc is the sidecar's JSON-RPC 2.0 connection to its host over
// stdio (SPEC §1, §2).
//
// # Layers
//
//   - the wire: github.com/sourcegraph/jsonrpc2's Conn carries every message
//     both ways — the host's requests and notifications to the Handler, our
//     reverse calls (ids "srv_N" by PickID) and their replies, our
//     notifications — over a wire.ObjectStream, which owns framing (newline
//     or LSP Content-Length), the frame limit (an oversized frame answered
//     with its own id), the JSON-RPC envelope rules (each frame decoded once;
//     a frame that cannot be served is answered there and never reaches the
//     Conn, so a host bug never ends the session, only the end of its input
//     does) and the bounded, group-committing writer. The library is a
//     patched copy (third_party/jsonrpc2/PATCHED.md): messages pass between
//     the Conn and the stream as values, never through encoding/json again;
//     writers are not serialised by the Conn and wait only as long as their
//     context; the end of the input ends pending calls but not the replies
//     still owed; an abandoned call is forgotten.
//   - conn.go: the Conn's Handler. The Conn calls it on its read loop, in
//     order; requests go to admission (admit.go bounds what waiting
//     requests may hold: a queue behind the in-flight cap, then the reader
//     pauses — pace, before each read — then -32003 busy).
//   - dispatcher.go: each admitted request runs in its own goroutine with
//     its own cancellable context, so a slow tool never blocks reading
//     cancellations or reverse-call replies. The one exception is
//     system.ping once the checks have settled (system.go): it cannot block
//     or be cancelled, so the read loop answers it, and the pings of one
//     read share one Health — a pipelined ping costs no goroutine hand-off,
//     context or write of its own. What the read loop answers is queued
//     and written in one write(2) before its next read of stdin or any
//     wait. stdout carries frames only; logs go to stderr.
//   - peer.go, host.go: the sidecar's own requests to the host.
//
// Two fast paths stay because they pay (bench/wirecmp compares with and
// without, in interleaved rounds): answering system.ping on the read loop
// spares pipelined pings a hand-off to a worker, and reusing idle workers
// (dispatcher.go's start) spares each tool call a new goroutine.
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
