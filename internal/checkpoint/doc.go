// Package checkpoint is the workspace's change log behind checkpoints and
// undo (README "Undo and checkpoints"): every change the file tools make
// is recorded here — the call id, the tool, the path, the content before
// (or "absent") and after — so a host can mark points (checkpoint.create)
// and take changes back (checkpoint.restore, tool.undo) without keeping a
// copy of the workspace itself.
//
// # Storage
//
// The store lives under the state directory, one directory per workspace
// (Dir). Contents are split into content-defined chunks (chunk.go) stored
// once per SHA-256, and a version — a content, named by its SHA-256, the
// read-state version the tools report — is the list of its chunks, also
// stored once. An edit of a large file therefore stores only the chunks it
// touched.
//
// Everything is appended to segment files as checksummed frames
// (frame.go): chunks first, then the version, then the record that names
// it, in one write. A SIGKILL at any point leaves at most a torn frame at
// the tail, which Open cuts off: a record is whole or absent, and a record
// present has its content present. Appends are not fsynced one by one (a
// SIGKILL loses nothing the kernel has); a checkpoint, a segment sealed
// and Close sync, so after a power loss the log is still a whole prefix.
//
// The store is bounded (Options.MaxBytes): once over, the oldest segment
// goes, with the records, checkpoints and commands in it, after the chunks
// and versions later records still name are copied forward. A content over
// Options.KeepLimit (or half the cap) is recorded as "not kept". One
// process appends to a store at a time (a lock file).
//
// # Restores
//
// Service compares before it writes: a file whose content is not what the
// tools last wrote (the user, a command or a later call changed it) is a
// conflict, left alone unless forced. A restore is one atomic commit
// through the workspace, so it is recorded in turn and can be undone, and
// it updates the read state as a tool write does. Changes made by commands
// (bash, run_code's own code) are not recorded; their calls are noted
// (Store.CommandRan) so a restore can say that they ran.
package checkpoint
