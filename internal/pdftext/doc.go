// Package pdftext reads what a model needs from a PDF (SPEC §4,
// read_file): the number of pages, the text of a range of pages in reading
// order, and a copy of the file that shows only those pages (the document
// block of STEERABLE_PDF_DOCUMENT).
//
// Parsing is github.com/ledongthuc/pdf (pure Go, a maintained fork of
// rsc.io/pdf). Its text helpers are not used: they keep no bound on a
// page's work and drop the spaces a PDF implies by position. Text here is
// its content-stream interpreter (pdf.Interpret) with our own operators:
// the text and graphics state of ISO 32000-1 §9.4 turn each shown string
// into a run with a position, and runs become words and lines by their
// gaps and baselines, in stream order (which keeps the columns of a
// two-column page apart).
//
// # Untrusted input
//
// The file may be anything. Every entry point runs under recover (the
// library reports malformed input by panicking), reads the file through a
// ReaderAt that stops once the call's context ends, and bounds its own
// loops: at most maxOps content operators a page, maxPageTree nodes in the
// page tree, each node visited once (a cycle in /Kids cannot loop). A
// malformed file is a *MalformedError; an encrypted one that needs a
// password is ErrEncrypted. FuzzOpen drives arbitrary bytes through Open,
// Text and Subset.
//
// # Subset
//
// The document block holds the selected pages only. Rather than
// re-serialising objects (the library exposes decoded streams, not their
// encoded bytes), Subset appends an incremental update (ISO 32000-1
// §7.5.6) to the original bytes: a new page tree listing the selected
// pages, a new catalog and a cross-reference section (a table or a stream,
// as the file uses) whose /Prev chains to the original. Every reader
// resolves the new catalog, so it shows those pages and nothing else.
package pdftext
