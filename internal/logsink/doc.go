// Package logsink is the sidecar's stderr: a bounded writer that never
// blocks the goroutine that logs (SPEC §1, "Logging never blocks the request
// path").
//
// # Why
//
// stderr is a pipe the host owns. A host that pipes it and never reads it (a
// common Electron mistake: only the ready line looked interesting) fills the
// pipe's 64 KiB within a few hundred calls; after that every write(2) blocks.
// A logger that writes under a lock then stops every goroutine that logs —
// tool calls, the shutdown path, signal handling — for good. Logs are worth
// less than replies, so here they are the part that gives way.
//
// # How
//
// Write copies the line into a queue bounded in bytes and returns at once;
// one drainer goroutine writes queued lines to stderr. When the queue is
// full the new line is dropped and counted. The count is reported twice: as
// a running total ([Sink.Dropped], which system.ping returns as
// droppedLogLines) and in the next line that gets through, as the member
// "droppedLogLines" (the lines dropped just before it). The ready marker
// goes through [Sink.WriteUrgent]: it is queued whatever the bound, so it is
// never dropped and never blocks either. [Sink.Close] flushes what it can
// within a deadline and gives up on a stderr nobody reads, so shutdown and
// exit never wait for the host.
//
// zerolog's diode writer was the model, but it bounds lines rather than
// bytes, drops the oldest lines (and with them the report of the drop), can
// miss a wake-up (Set broadcasts outside the reader's lock, which would
// delay the ready marker until the next line) and its Close waits forever
// for a reader stuck in write(2).
//
// # Console format
//
// Lines arrive as zerolog JSON. With a render function (the console
// format), the drainer turns them into text: formatting, like writing, is
// then off the logging goroutine's path.
package logsink
