// Package rpc is the sidecar's JSON-RPC 2.0 connection to its host over
// stdio (SPEC §1, §2).
//
// # Layers
//
// The connection is github.com/sourcegraph/jsonrpc2. Three things it does by
// itself are wrong for a sidecar, and this package supplies the rest:
//
//   - It closes the connection on any frame it cannot decode. Our stream
//     (stream.go, frame.go) checks every frame first and answers what the
//     library would choke on — not JSON (-32700), batches, non-objects,
//     bad ids, oversized lines (-32600) — then reads the next frame. A host
//     bug never kills the session.
//   - It runs handlers on its read loop with the connection's context. The
//     dispatcher (dispatcher.go) gives each request its own goroutine and
//     its own cancellable context, under an in-flight cap, so a slow tool
//     never blocks reading cancellations or reverse-call replies.
//   - It closes on EOF. The stream holds EOF until the server has drained
//     in-flight calls, so their replies still reach the host.
//
// # Framing
//
// One compact JSON object per line (default), or LSP Content-Length headers
// (--framing=content-length), written with the library's header codec. stdout
// carries frames only; logs go to stderr.
//
// # Requests
//
// Every method is in the table in methods.go. Params are validated against
// the method's JSON Schema in protocol/schema (-32602 with data.errors
// naming each JSON pointer), then decoded. A tool that runs and fails is a
// ToolResult, never a JSON-RPC error: errors are for the envelope. toWire
// (errors.go) is the one mapping from Go errors to wire errors; codes survive
// %w wrapping because protocol.Error compares by code.
//
// # Cancellation and shutdown
//
// $/cancelRequest {id} cancels that request's context; it is answered
// -32800. system.shutdown and EOF stop accepting work, let in-flight calls
// finish for STEERABLE_SHUTDOWN_GRACE_MS, cancel the rest, send
// lifecycle.shutdown and return. system.shutdown_now and signals cancel
// everything at once. A request id already in flight is refused with -32600.
//
// # Reverse calls
//
// Peer (peer.go) sends the sidecar's own requests to the host with ids
// "srv_N" and implements tools.Host. A reverse call ends with the host's
// result, its error, tools.ErrHostGone (no host, EOF, write failure) or the
// caller's context — never hangs.
package rpc
