// Package clip bounds text to its head and its tail around one marker line,
// the same way wherever the sidecar hands a model more text than it may:
// read_file's view, a shell session's read, a sandboxed command's output, a
// plugin's result.
//
// Why head and tail: the start of an output names what it is (a command's
// banner, a file's package clause) and the end holds what happened last (the
// error, the summary); the middle is what a model can ask for again with a
// narrower request. Why one marker: a model that has seen one clipped
// result recognises the next, whichever tool produced it. The marker is
//
//	\n...[N bytes truncated]...\n        (Unit Bytes)
//	\n...[N characters truncated]...\n   (Unit Chars)
//
// on a line of its own, where N is exactly how many units of the original
// the line stands for (SPEC §4.1; docs/protocol.md, "Clipped text").
//
// The unit is a parameter: Bytes where the budget is memory or a byte limit
// from configuration (command output, plugin results), Chars (Unicode code
// points; every byte that is not a UTF-8 continuation byte starts one) where
// the budget is what a model reads. Either way a cut never splits a UTF-8
// sequence: in Bytes the cut edges are trimmed to whole characters and the
// trimmed bytes counted in N.
//
// Writer clips a stream in bounded memory, whatever its length; Limit.String
// clips text already in memory, with the same result.
package clip
