// Package readstate is the session's memory of which file versions the
// model has seen: the content-hash version of a file, the store that maps
// each path to the version last read or written (and whether that read was
// partial), and the seeding that rebuilds the store after a restart
// (SPEC §4.1, tools-spec "File tools: read-before-write state").
//
// # Why a content hash
//
// The compare-and-swap token is the lowercase hex SHA-256 of the file's
// exact bytes, never an mtime: a touch that leaves the content identical does
// not cause a false conflict, and a same-mtime content change does not slip
// through. tool_contract.json carries test vectors so that independent
// implementations (a host's local executor) agree byte for byte.
//
// # Who owns the state
//
// One sidecar process serves one agent session, and the store lives in that
// process, not in the transcript: context compaction cannot fold it away.
// The loss point is a process restart; read_state.seed then rebuilds it from
// the host's durable record (Seed). A missing entry only means one fewer CAS
// check, never a wrong write, so seeding is lenient: what cannot be parsed
// is skipped and counted.
//
// # Locks
//
// The store also hands out per-path locks (Lock). The file tools hold the
// lock of every path they touch from the version check to the state update,
// so two concurrent writers through the sidecar can neither interleave their
// content nor both pass a check against the same version.
package readstate
