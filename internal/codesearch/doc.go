// Package codesearch is the engine under the grep and glob tools (issue
// 17): a structured search of the workspace that selects files the way
// ripgrep does and runs in the sidecar's process, at ripgrep's speed for
// the common cases, instead of a sandboxed `grep -rn` whose unstructured
// output floods a model's context with node_modules and build output.
//
// # What is searched
//
// The walk starts in one directory (the workspace, a path the model
// names, or a glob's leading literal directories) and judges every entry
// below it, never the start itself, so a directory the model names is
// searched even if it is ignored or hidden. An entry is skipped when, in
// this order of rank (judge), the first kind of ignore file with a
// matching rule ignores it:
//
//  1. .ignore files, nearest directory first;
//  2. .gitignore files, nearest first, only inside a git repository and
//     not above the root of the nearest one;
//  3. that repository's .git/info/exclude;
//  4. the default set (STEERABLE_SEARCH_IGNORE), relative to the workspace.
//
// Within one file the last matching rule wins, so "!x" re-includes. A
// hidden name (a leading dot) is skipped unless a rule re-included it or
// the pattern names it. An ignored directory is not entered. This is
// ripgrep's ignore crate (ignore::dir), checked against `rg --files` in
// the tests. Patterns are gitignore(5) with git's wildmatch, ported here
// (wildmatch.go): the served libraries either rewrite patterns into
// regular expressions with known gaps or pull in a git implementation and
// still lack the ranking of the kinds and the nested-repository rule.
//
// # Threat model
//
// The model chooses the path, the query and the glob; anyone who can put
// files in the workspace (a cloned repository) chooses the tree, its ignore
// files, its symlinks and its special files. So:
//
//   - a path goes through the file tools' resolver (files.Workspace.Resolve):
//     one that resolves outside the workspace, or into a credential store,
//     is refused;
//   - a credential store below the start (files.Deny) is skipped and
//     counted (Stats.Denied), never entered or listed;
//   - the walk opens every directory through an os.Root below its parent's,
//     by a single name from the listing, and never follows a symlink it
//     finds: no symlink, however placed or swapped in mid-walk, leads out,
//     and a symlink loop is just an entry that is skipped;
//   - entries are classified by the type the listing reports, so a FIFO,
//     socket or device is never opened; files are opened O_NONBLOCK and
//     checked to be regular, in case one was swapped in since;
//   - regular expressions are RE2 (linear time), queries and globs are
//     bounded in length and in brace alternatives, and ignore rules are
//     bounded in length and wildcards and matched with a memo past a few
//     hundred steps: no input makes a search superlinear;
//   - results are bounded by the limit (a heap of the best so far), text by
//     500 characters per line, memory per worker by the region size or the
//     longest line of a file, a DFA's states by a fixed cache per worker,
//     files by STEERABLE_FILE_MAX_BYTES.
//
// The only access outside the workspace is a check for a .git entry in
// the directories above it (is the workspace inside a repository?).
//
// # Speed
//
// Directories and files are jobs on one LIFO stack shared by a worker per
// core. A file is read in regions of up to 1 MiB that end at a line break
// and each region is searched in one pass: a literal by bytes.IndexByte on
// its rarest byte (SIMD in the runtime), a regular expression by first
// finding a literal every match must contain (literal.go) and running the
// expression only on the lines that hold it; line numbers are counted only
// for hits that are kept. Go's regexp has no DFA, so an expression without
// such a literal is first run through a lazy DFA built from the same
// program (dfa.go), which
// finds the lines that can match; the regexp runs on those lines only, so
// every hit is still the regexp's. Where only one byte is required and few
// lines hold it, that byte is found first and the DFA checks its lines. A
// DFA whose states keep overflowing their cache gives up, and the regexp
// searches alone (at Go's NFA speed, tens of MB/s per core). Cancellation
// is checked between files, between regions, and between 64 KiB slices of
// a region searched without a literal.
package codesearch
