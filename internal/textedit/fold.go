package textedit

import "strings"

// folder maps typographic characters models often type in place of the
// ASCII ones in the file (and the reverse): curly quotes, dashes, the
// ellipsis and non-breaking or fixed-width spaces.
var folder = strings.NewReplacer(
	"\u2018", "'", "\u2019", "'", "\u201a", "'", "\u201b", "'", "\u2032", "'",
	"\u201c", `"`, "\u201d", `"`, "\u201e", `"`, "\u201f", `"`, "\u2033", `"`,
	"\u2010", "-", "\u2011", "-", "\u2012", "-", "\u2013", "-", "\u2014", "-", "\u2015", "-", "\u2212", "-",
	"\u2026", "...",
	"\u00a0", " ", "\u2002", " ", "\u2003", " ", "\u2004", " ", "\u2005", " ", "\u2006", " ",
	"\u2007", " ", "\u2008", " ", "\u2009", " ", "\u200a", " ", "\u202f", " ", "\u205f", " ", "\u3000", " ",
)

// Match levels, in the order they are tried.
const (
	LevelExact   = "exact"
	LevelTrim    = "trim"
	LevelUnicode = "unicode"
)

// Levels lists the match levels in order.
var Levels = []string{LevelExact, LevelTrim, LevelUnicode}

// lineKey is how a line compares at a line-based level.
func lineKey(level, line string) string {
	line = strings.TrimSpace(line)
	if level == LevelUnicode {
		line = strings.TrimSpace(folder.Replace(line))
	}
	return line
}
