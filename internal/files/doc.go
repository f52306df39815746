// Package files is the file-system layer under the file tools (SPEC §4,
// §4.1): it turns a model-supplied path into a real path inside the
// workspace, reads text files in one bounded-memory streaming pass, and
// writes files so that a crash leaves the old content or the new, never a
// mix.
//
// # Threat model
//
// Paths come from the model and are untrusted. The workspace root is
// absolute with its symlinks resolved (cmd does that at boot). Resolve walks
// the path one component at a time, following symlinks the way the kernel
// would, and refuses a result outside the root ("path escapes the
// workspace") unless confinement is off. That catches `..`, absolute paths
// and symlinks that point out, however they are chained.
//
// Resolution and use are two steps, and another process (a shell the model
// runs, a person) could swap a directory for a symlink in between. Every
// file operation therefore goes through an os.Root opened on the workspace
// (on "/" when confinement is off), which refuses at use time any path that
// would leave it, and the final component is opened without following
// symlinks. Reads open with O_NONBLOCK and refuse anything but a regular
// file, so a FIFO or a device cannot hang or flood a call.
//
// Credential stores (the sandbox's deny list: ~/.ssh, ~/.aws, …) are
// refused by Resolve wherever they lie, inside the workspace too and with
// confinement off (WithDeny, deny.go): every file tool resolves through it,
// so read_file, write_file, edit_file, apply_patch, grep's and glob's
// paths, run_code's nested calls and the MCP server all refuse the same
// paths. The check runs on the resolved path — symlinks followed — and is
// a lookup of it and its prefixes in maps, never a stat, so it costs
// nothing measurable per call and covers a store created after start. A
// walk (codesearch) skips the stores with Deny.Holds and Deny.Match.
//
// On Windows a path is first checked by the Windows rules (winpath.go,
// tested on every platform): device prefixes, drive-relative paths,
// alternate data streams, reserved device names and names Windows would
// silently alter are refused with the reason; the rest is made absolute
// and compared without case. The platform files per concept are
// pathsyntax_*.go (how a path is read), atomic_*.go (how a file is
// replaced) and lock_*.go (the journal's lock).
//
// # Atomic writes
//
// WriteFile writes a temporary file in the target's directory, fsyncs it,
// renames it over the target and fsyncs the directory (rename is atomic
// within a file system). The file's mode (and owner, where permitted) is
// kept; missing parent directories are created, and removed again when the
// write fails. Commit extends this to several files: every new content is
// staged in a temporary file first, then the renames run, and a failure
// rolls back the files already changed.
//
// # Crash atomicity of several files
//
// A rename is atomic; ten renames are not. With a journal (WithJournal,
// under the user's state directory) Commit writes a rollback transaction —
// a manifest and a copy of every file it replaces — before the first
// rename, marks it done after the last one, and removes it. Recover, run at
// the next start for the workspace, rolls back every transaction that is
// not done, touching only files that hold exactly what the commit wrote
// (journal.go, recover.go). A live commit of another process is told apart
// by the lock on its manifest. Recovery runs with the sidecar's rights,
// outside any sandbox, so a manifest is checked whole before any path in
// it is followed (manifest.go): workspace paths inside the workspace,
// staged files and backups beside their files in Commit's own name shape,
// kept originals as plain names inside the transaction; anything else is
// refused and reported, and the transaction left for a person.
//
// # Memory
//
// The common call is small: a file of at most smallFile bytes is read into
// one buffer sized from its stat, checked and hashed in place, and its text
// shares that buffer; writes take strings and hash and write them without a
// copy. Only large files stream, through pooled buffers (pool.go), so the
// allocation of a call is a small multiple of the file's size and bounded
// for any size.
package files
