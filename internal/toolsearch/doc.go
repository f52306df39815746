// Package toolsearch is the ranking behind tool_search (SPEC §4.4): an
// identifier-aware analysis chain built from bleve's analysis packages, an
// in-memory term index that is updated in place, and textbook BM25 computed
// from its term statistics.
//
// # Analysis
//
// Tool names are identifiers (createPullRequest, read_file, HTTPServer,
// oauth2_token) and descriptions are prose, sometimes not in English. The
// chain is a bleve analysis.DefaultAnalyzer of four components of ours
// (assembled directly: bleve's registry would link its search and geo
// packages, and their init, into every start-up):
//
//  1. char filter nfkcFilter: NFKC normalisation (fullwidth letters,
//     ligatures and decomposed accents become the plain forms, as for Python
//     identifiers), and every character that is not a letter, mark or
//     decimal digit becomes a space;
//  2. tokenizer runTokenizer: runs of letters (L), marks (M) and decimal
//     digits (Nd) over Go's Unicode tables (bleve's character tokenizer,
//     minus its allocation of room for 1,024 tokens per call);
//  3. token filter identifierFilter: each Han, Hiragana or Katakana
//     character becomes its own token, and the rest is split at camelCase
//     boundaries while digits stay with their run (v2, base64, HTTP2); a
//     piece that splits is also kept whole, before its parts (GitHub →
//     GitHub, Git, Hub), since the same brand is one word in mcp__github__x;
//  4. token filter lowerFold: the simple lowercase mapping, with
//     final sigma ς written as σ so that ΟΔΟΣ, οδος and οδοσ are one term.
//
// Three stock pieces are replaced, because they deviate from
// the rules of SPEC §4.4: bleve's "unicode" tokenizer (UAX #29 over old
// Unicode tables) drops Thai, Lao, Khmer and Myanmar text and about 27,000
// letters added to Unicode since, and keeps "read_file" and "file.read"
// whole; its "camelCase" filter splits digits off letters ("v2" → v, 2);
// its "to_lower" filter corrupts a term after a rune whose lowercase is
// shorter ("İ0" → "i\xb0", invalid UTF-8).
//
// # Index and score
//
// bleve's own scorer is not textbook BM25 (it square-roots tf and adds a
// query weight and a coordination factor), and its scorch index keeps field
// lengths only as a lossy norm, so the index here is a plain in-memory one:
// postings term → tool → tf, plus each document's exact length. A document is
// the name's tokens twice plus the description's tokens. For each distinct
// query term t present in document d the score adds
//
//	idf(t) · tf·(k1+1) / (tf + k1·(1 − b + b·dl/avgdl)),  idf(t) = ln(1 + (N − df + 0.5)/(df + 0.5))
//
// with k1 = 1.2 and b = 0.75, N, df and avgdl over the indexed (deferred)
// tools. Terms are summed in sorted order, the sum is rounded to six decimal
// places, and hits are ranked by rounded score, then by name in byte order,
// so an independent port (tool_contract.json "toolSearch") reproduces both
// the scores and the order. A document without any query term is not a hit.
//
// Updates (Apply) analyse outside the lock and then swap postings under it,
// so a search sees a re-registration either entirely or not at all.
package toolsearch
