package lsp

import (
	"fmt"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"steerable.dev/sidecar/internal/clip"
)

// LSP positions count UTF-16 code units by default; the model counts
// neither, so it names a line and a symbol and the column is found here.

// utf16Column is the UTF-16 offset of byte offset off in line.
func utf16Column(line string, off int) int {
	n := 0
	for i, r := range line {
		if i >= off {
			break
		}
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// byteColumn is the byte offset of UTF-16 offset u in line (clamped).
func byteColumn(line string, u int) int {
	n := 0
	for i, r := range line {
		if n >= u {
			return i
		}
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return len(line)
}

// findSymbol returns the byte offset of symbol in line: the first
// occurrence that stands as a whole identifier, else the first at all.
func findSymbol(line, symbol string) (int, error) {
	if symbol == "" {
		return 0, fmt.Errorf("symbol is empty; name the identifier on the line")
	}
	first := -1
	for from := 0; from <= len(line); {
		i := strings.Index(line[from:], symbol)
		if i < 0 {
			break
		}
		i += from
		if first < 0 {
			first = i
		}
		if wordBoundary(line, i, i+len(symbol)) {
			return i, nil
		}
		from = i + 1
	}
	if first >= 0 {
		return first, nil
	}
	return 0, fmt.Errorf("symbol %q is not on that line, which reads: %s", symbol, clip.Short(strings.TrimSpace(line), 200))
}

func wordBoundary(line string, start, end int) bool {
	if start > 0 {
		r, _ := utf8.DecodeLastRuneInString(line[:start])
		if isIdent(r) {
			return false
		}
	}
	if end < len(line) {
		r, _ := utf8.DecodeRuneInString(line[end:])
		if isIdent(r) {
			return false
		}
	}
	return true
}

func isIdent(r rune) bool { return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// splitLines splits a file into lines without their terminators.
func splitLines(content string) []string {
	lines := strings.Split(content, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// excerpt is line n (0-based) trimmed and clipped, for one-line results.
func excerpt(lines []string, n int) string {
	if n < 0 || n >= len(lines) {
		return ""
	}
	return clip.Short(strings.TrimSpace(lines[n]), 160)
}

func filepathExists(p string) (bool, error) {
	_, err := os.Stat(p)
	return err == nil, err
}
