// Package notebook reads and edits Jupyter notebooks (nbformat 4) for
// read_file and notebook_edit (SPEC §4).
//
// Parse keeps the file's bytes and records where each cell sits in them.
// An edit rewrites the bytes of one cell (or inserts or removes one) and
// leaves every other byte alone, so the notebook keeps its indentation,
// key order, trailing newline and every cell the edit does not touch,
// byte for byte: re-marshalling the document would reorder keys, change
// escapes and churn every line of a diff. The cell that changes is written
// in the style of its neighbours (indent unit, separators), its untouched
// members (metadata, id, attachments) as they were, and strings the way
// Jupyter writes them (json.dumps with ensure_ascii=False: only quotes,
// backslashes and control characters escaped).
//
// Cells without an id (nbformat < 4.5) are named by position, "cell-N"
// (1-based), in what Parse returns and in what an edit accepts.
package notebook
