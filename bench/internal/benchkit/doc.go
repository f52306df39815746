// Package benchkit is the measuring code the benchmark programs under bench/
// share: every program drives the sidecar and its reference peers (the MCP
// filesystem server, a bare echo loop, a floor program) with the same client,
// so that figures from different programs, and the two columns of one table,
// are comparable.
//
// # Why one client
//
// A round trip timed by one client and a reference's timed by another compare
// two clients as much as two servers: one might marshal a map per request
// where another splices an id into a prepared frame, one might match replies
// by a substring that breaks on servers that put "id" last. Here there is one
// way to do each thing a figure depends on:
//
//   - one write per request frame; in the timed loops ([Proc.RoundTrips],
//     [Proc.Pipelined]) the request is encoded before the clock starts and
//     only its id is spliced in per call;
//   - a reply is matched by its parsed JSON id, decoding no more than the
//     id and method on the timed paths; notifications, server requests and
//     stray lines are skipped;
//   - spawn-to-ready stops the clock when the ready line is read from
//     stderr, before any clean-up ([StartReady]);
//   - a child is closed by closing its stdin, with a bounded wait before it
//     is killed ([Proc.Close]), so a stuck peer cannot hang a report;
//   - memory is read from /proc/PID/status ([RSS], [PeakRSS]);
//   - percentiles use one rule, the nearest rank ([Percentile]).
//
// # What stays in each program
//
// The tables: each program keeps its own layout, units and targets. Figures
// are printed for a report, never asserted; a missed target reads MISS and
// does not fail the run.
package benchkit
