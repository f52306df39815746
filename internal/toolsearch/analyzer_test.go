package toolsearch

import (
	"testing"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/token/camelcase"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	unicodetok "github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"steerable.dev/sidecar/internal/toolsearch/refbm25"
)

func newTestAnalyzer(t testing.TB) *Analyzer {
	t.Helper()
	an, err := NewAnalyzer()
	if err != nil {
		t.Fatal(err)
	}
	return an
}

// tokenCases are the tokenisation rules of SPEC §4.4, also checked against
// the independent implementation.
var tokenCases = []struct {
	name string
	in   string
	want []string
}{
	{"snake_case", "read_file", []string{"read", "file"}},
	{"camelCase: whole, then parts", "createPullRequest", []string{"createpullrequest", "create", "pull", "request"}},
	{"PascalCase", "CreatePullRequest", []string{"createpullrequest", "create", "pull", "request"}},
	{"brand word kept whole", "GitHub", []string{"github", "git", "hub"}},
	{"brand word in a query", "GitHub issues", []string{"github", "git", "hub", "issues"}},
	{"lowercase brand in a name", "mcp__github__create_issue", []string{"mcp", "github", "create", "issue"}},
	{"one-letter head", "iOS", []string{"ios", "i", "os"}},
	{"upper run is not split", "GITHUB", []string{"github"}},
	{"acronym then word", "HTTPServer", []string{"httpserver", "http", "server"}},
	{"word then acronym", "parseHTML", []string{"parsehtml", "parse", "html"}},
	{"acronym, digit, word", "getHTTP2Response", []string{"gethttp2response", "get", "http2", "response"}},
	{"two acronyms", "HTTPSServer", []string{"httpsserver", "https", "server"}},
	{"kebab-case", "list-open-issues", []string{"list", "open", "issues"}},
	{"dotted", "github.issues.create", []string{"github", "issues", "create"}},
	{"slashes and colons", "mcp:fs/read_file", []string{"mcp", "fs", "read", "file"}},
	{"digits stay with their run", "v2", []string{"v2"}},
	{"leading digits", "2fa_code", []string{"2fa", "code"}},
	{"digits inside", "base64Encode", []string{"base64encode", "base64", "encode"}},
	{"digit before upper splits", "v2Client", []string{"v2client", "v2", "client"}},
	{"numbers alone", "port 8080", []string{"port", "8080"}},
	{"upper run", "ALL_CAPS", []string{"all", "caps"}},
	{"whitespace and punctuation", "  Send an e-mail (SMTP)!\tnow\n", []string{"send", "an", "e", "mail", "smtp", "now"}},
	{"no stop words, no stemming", "the files are running", []string{"the", "files", "are", "running"}},
	{"accents", "Crée un événement", []string{"crée", "un", "événement"}},
	{"decomposed accents compose (NFKC)", "cre\u0301e", []string{"crée"}},
	{"fullwidth (NFKC)", "ＨＴＴＰＳｅｒｖｅｒ", []string{"httpserver", "http", "server"}},
	{"ligature (NFKC)", "ﬁle", []string{"file"}},
	{"german", "Straßenübersicht", []string{"straßenübersicht"}},
	{"lowercase shorter than the capital (İ)", "İstanbul İ0", []string{"istanbul", "i0"}},
	{"lowercase shorter than the capital (ẞ)", "STRAẞE ẞx", []string{"straße", "ßx"}},
	{"lowercase longer than the capital (Ⱥ)", "Ⱥbc", []string{"ⱥbc"}},
	{"greek final sigma", "ΟΔΟΣ οδος οδοσ", []string{"οδοσ", "οδοσ", "οδοσ"}},
	{"cyrillic camel", "созданиеЗадачи", []string{"созданиезадачи", "создание", "задачи"}},
	{"greek camel, final sigma inside the whole", "ΟδόςΑθηνών", []string{"οδόσαθηνών", "οδόσ", "αθηνών"}},
	{"han characters alone", "日本語", []string{"日", "本", "語"}},
	{"hiragana alone", "ひらがな", []string{"ひ", "ら", "が", "な"}},
	{"katakana alone, long mark is not katakana", "コーヒー", []string{"コ", "ー", "ヒ", "ー"}},
	{"han next to latin", "東京tower", []string{"東", "京", "tower"}},
	{"camel piece before han: whole is the piece only", "fooBar東京", []string{"foobar", "foo", "bar", "東", "京"}},
	{"camel pieces around katakana (the long mark is Common and joins the next run)", "getコーヒーOrder", []string{"get", "コ", "ー", "ヒ", "ーorder"}},
	{"camel pieces split by han", "myApp日本Tool", []string{"myapp", "my", "app", "日", "本", "tool"}},
	{"hangul stays a word", "한글abc", []string{"한글abc"}},
	{"thai is kept", "ภาษาไทย", []string{"ภาษาไทย"}},
	{"emoji separate", "deploy🚀now", []string{"deploy", "now"}},
	{"replacement character separates", "a\ufffdb", []string{"a", "b"}},
	{"invalid UTF-8 separates", "a\xffb", []string{"a", "b"}},
	{"empty", "", nil},
	{"only punctuation", "-- _ . / !", nil},
}

func TestTokenisation(t *testing.T) {
	an := newTestAnalyzer(t)
	for _, tc := range tokenCases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, an.Terms(tc.in), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("analyzer(%q) (-want +got):\n%s", tc.in, diff)
			}
			if diff := cmp.Diff(tc.want, refbm25.Tokenize(tc.in), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("refbm25.Tokenize(%q) (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

// TestStockComponentsDeviate records why the chain replaces bleve's
// "unicode" tokenizer and "camelCase" filter: if a bleve upgrade fixes
// them, this test says the custom pieces can go.
func TestStockComponentsDeviate(t *testing.T) {
	terms := func(ts analysis.TokenStream) []string {
		var out []string
		for _, tok := range ts {
			out = append(out, string(tok.Term))
		}
		return out
	}
	uni := unicodetok.NewUnicodeTokenizer()
	if got := terms(uni.Tokenize([]byte("ภาษาไทย"))); len(got) != 0 {
		t.Errorf("bleve's unicode tokenizer now keeps Thai: %q", got)
	}
	if got := terms(uni.Tokenize([]byte("read_file file.read"))); !cmp.Equal(got, []string{"read_file", "file.read"}) {
		t.Errorf("bleve's unicode tokenizer now splits identifiers: %q", got)
	}
	lower := lowercase.NewLowerCaseFilter()
	if got := terms(lower.Filter(analysis.TokenStream{{Term: []byte("İ0")}})); !cmp.Equal(got, []string{"i\xb0"}) {
		t.Errorf("bleve's to_lower filter now gives %q for İ0", got)
	}
	cc := camelcase.NewCamelCaseFilter()
	in := analysis.TokenStream{{Term: []byte("v2Client"), Start: 0, End: 8, Position: 1}}
	if got := terms(cc.Filter(in)); !cmp.Equal(got, []string{"v", "2", "Client"}) {
		t.Errorf("bleve's camelCase filter now gives %q for v2Client", got)
	}
}

func FuzzAnalyzerMatchesReference(f *testing.F) {
	for _, tc := range tokenCases {
		f.Add(tc.in)
	}
	an := newTestAnalyzer(f)
	f.Fuzz(func(t *testing.T, s string) {
		got, want := an.Terms(s), refbm25.Tokenize(s)
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("analyzer and reference disagree on %q (-ref +analyzer):\n%s", s, diff)
		}
	})
}
