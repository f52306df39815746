package toolsearch

import "math"

// BM25 parameters and result bounds of SPEC §4.4; tool_contract.json
// "toolSearch" carries the same values and a test keeps them in step.
const (
	K1 = 1.2
	B  = 0.75
	// NameWeight is how many times a name's tokens count in its document.
	NameWeight = 2
	// DefaultLimit and MaxLimit bound how many matches a search returns:
	// every match carries a full schema, so the payload stays bounded.
	DefaultLimit = 8
	MaxLimit     = 20
	// ScoreDecimals is the rounding applied before ranking and reporting.
	ScoreDecimals = 6
)

// IDF is ln(1 + (N − df + 0.5)/(df + 0.5)); it is positive for any df ≤ N.
func IDF(n, df int) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// TermScore is one query term's contribution to a document's score.
func TermScore(idf float64, tf, dl int, avgdl float64) float64 {
	f := float64(tf)
	return idf * f * (K1 + 1) / (f + K1*(1-B+B*float64(dl)/avgdl))
}

// Round rounds a score to ScoreDecimals places, half away from zero.
func Round(score float64) float64 {
	const scale = 1e6
	return math.Round(score*scale) / scale
}
