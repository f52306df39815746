// Package wire is the sidecar's JSON-RPC 2.0 wire: the one place that
// frames, checks and writes JSON-RPC messages on a byte stream. Serve mode
// (internal/rpc) runs on it; every rule about what may cross stdio lives
// here, so the modes cannot drift apart in what they accept, what they
// answer and how much they hold.
//
//   - reader.go: framing. One JSON object per line (newline) or LSP
//     Content-Length headers, each frame at most a limit. An oversized frame
//     is read through and discarded, never buffered whole, and reported as
//     *TooLargeError carrying the frame's id when it can be recovered from
//     the frame's head or tail (recover.go), so the sender's call still gets
//     its answer.
//   - envelope.go, id.go: each frame is read once. json.Valid checks it,
//     one scan of its top level (protocol.EachMember) finds the members
//     (spans of the frame, never copied) and decides what it is — request,
//     notification, response — or which error to answer: not JSON (-32700),
//     batches, non-objects, bad ids, non-string methods, scalar params
//     (-32600). Ids are a string or a non-negative integer; ID.Key is the
//     same for every spelling of one id.
//   - writer.go: one bounded, group-committing writer. Frames queue in
//     memory up to a byte bound; a host that stops reading stdout makes
//     writers wait — a reply as long as it takes, a reverse call or
//     notification only as long as its context — and a progress
//     notification is dropped and counted rather than wait at all. Frames
//     queued while a write(2) is under way go out in the next one.
//   - encode.go: outgoing frames are assembled from their parts; only the
//     result, params or error object goes through encoding/json, once.
package wire
