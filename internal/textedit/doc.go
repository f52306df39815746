// Package textedit holds the pure text transformations behind edit_file and
// apply_patch (SPEC §4.1): finding each edit's oldText at the first match
// level that finds it, parsing and applying Codex-format patches, and
// rendering unified diffs. Nothing here touches the file system; the tools
// read and write through internal/files.
//
// # Faithful rewrites
//
// A model sees and writes "\n" line endings; a file on disk may use CRLF,
// mix both, or start with a byte-order mark. Matching runs on a normalised
// view (BOM stripped, CRLF folded to LF) whose offsets map back to the
// original bytes, so only the matched region is replaced: every other byte
// of the file, including the line endings of lines nobody touched, stays as
// it was. Inserted text gets the file's dominant line ending.
//
// # Match levels
//
// exact (byte for byte after line-ending normalisation, anywhere in a
// line), then trim (whole lines, surrounding whitespace of each line
// ignored), then unicode: typographic quotes, dashes, ellipses and exotic
// spaces folded to ASCII on both sides, first anywhere in a line as exact
// does, then as whole lines as trim does. The first level with any match
// decides; more than one match there is ambiguous, never silently resolved.
//
// # Cost
//
// Matching is linear in the file's size whatever the input, and stops when
// its context is cancelled (find.go): a long oldText is searched with
// Knuth–Morris–Pratt, and whole-line matching runs Knuth–Morris–Pratt over
// line keys, so a file of identical lines against a long oldText of the
// same lines costs one pass, not one comparison per line and position.
package textedit
