package askuser

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"steerable.dev/sidecar/internal/schema"
	"steerable.dev/sidecar/protocol"
)

// canon normalises in and returns the canonical JSON, failing on problems.
func canon(t *testing.T, in string) string {
	t.Helper()
	out, problems := normalizeAskUser(json.RawMessage(in))
	if len(problems) > 0 {
		t.Fatalf("normalise %s: unexpected problems %q", in, problems)
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestNormalizeAskUserAliasesAndTypes(t *testing.T) {
	const yesNo = `"type":"select","options":[{"label":"Yes","value":"yes"},{"label":"No","value":"no"}]`
	tests := []struct {
		name, in, want string
	}{
		{"canonical is unchanged",
			`{"intro":"Hi","questions":[{"id":"db","text":"Which?","type":"select","options":[{"label":"Postgres","value":"pg","description":"big"},{"label":"SQLite"}],"multiSelect":true,"header":"DB"}],"outro":"Thanks"}`,
			`{"intro":"Hi","questions":[{"id":"db","text":"Which?","type":"select","options":[{"label":"Postgres","value":"pg","description":"big"},{"label":"SQLite"}],"multiSelect":true,"header":"DB"}],"outro":"Thanks"}`},
		{"name is id, message is text",
			`{"intro":"","questions":[{"name":"n","message":"Name?","type":"text"}]}`,
			`{"intro":"","questions":[{"id":"n","text":"Name?","type":"text"}]}`},
		{"choices are options",
			`{"intro":"","questions":[{"id":"c","text":"Pick","type":"select","choices":[{"label":"a"},{"label":"b"}]}]}`,
			`{"intro":"","questions":[{"id":"c","text":"Pick","type":"select","options":[{"label":"a"},{"label":"b"}]}]}`},
		{"canonical key wins over its alias",
			`{"intro":"","questions":[{"id":"real","name":"alias","text":"T","message":"M","type":"text"}]}`,
			`{"intro":"","questions":[{"id":"real","text":"T","type":"text"}]}`},
		{"an empty canonical key falls back to the alias",
			`{"intro":"","questions":[{"id":"","name":"alias","text":" ","message":"M","type":"text"}]}`,
			`{"intro":"","questions":[{"id":"alias","text":"M","type":"text"}]}`},
		{"list is select", q(`"type":"list","choices":["a","b"]`), want(`"type":"select","options":[{"label":"a"},{"label":"b"}]`)},
		{"rawlist is select", q(`"type":"rawlist","choices":["a","b"]`), want(`"type":"select","options":[{"label":"a"},{"label":"b"}]`)},
		{"expand is select", q(`"type":"expand","choices":[{"key":"y","name":"Yes","value":"y"},{"key":"n","name":"No","value":"n"}]`),
			want(`"type":"select","options":[{"label":"Yes","value":"y"},{"label":"No","value":"n"}]`)},
		{"checkbox is a multiSelect select", q(`"type":"checkbox","choices":[{"name":"a","checked":true},"b"]`),
			want(`"type":"select","options":[{"label":"a"},{"label":"b"}],"multiSelect":true`)},
		{"checkbox stays multiSelect", q(`"type":"checkbox","multiSelect":false,"choices":["a","b"]`),
			want(`"type":"select","options":[{"label":"a"},{"label":"b"}],"multiSelect":true`)},
		{"input is text", q(`"type":"input","default":"x"`), want(`"type":"text"`)},
		{"editor is text", q(`"type":"editor"`), want(`"type":"text"`)},
		{"number is text", q(`"type":"number","validate":"fn"`), want(`"type":"text"`)},
		{"password stays password", q(`"type":"password","mask":"*"`), want(`"type":"password"`)},
		{"confirm is a Yes/No select", q(`"type":"confirm","default":true`), want(yesNo)},
		{"confirm replaces stray choices", q(`"type":"confirm","choices":["x"]`), want(yesNo)},
		{"types are case-insensitive", q(`"type":" Select ","options":["a","b"]`), want(`"type":"select","options":[{"label":"a"},{"label":"b"}]`)},
		{"no type with options is select", q(`"options":["a","b"]`), want(`"type":"select","options":[{"label":"a"},{"label":"b"}]`)},
		{"no type without options is text", q(``), want(`"type":"text"`)},
		{"multiSelect false on text is dropped", q(`"type":"text","multiSelect":false`), want(`"type":"text"`)},
		{"numbers and booleans as options", q(`"type":"list","choices":[1,2.5,true]`),
			want(`"type":"select","options":[{"label":"1"},{"label":"2.5"},{"label":"true"}]`)},
		{"option values that are not strings", q(`"type":"list","choices":[{"name":"one","value":1},{"name":"yes","value":true},{"name":"none","value":null}]`),
			want(`"type":"select","options":[{"label":"one","value":"1"},{"label":"yes","value":"true"},{"label":"none"}]`)},
		{"an option without a label takes its value", q(`"options":[{"value":"a"},{"value":"b"}]`),
			want(`"type":"select","options":[{"label":"a","value":"a"},{"label":"b","value":"b"}]`)},
		{"separators are dropped", q(`"type":"list","choices":["a",{"type":"separator","line":"--"},"b"]`),
			want(`"type":"select","options":[{"label":"a"},{"label":"b"}]`)},
		{"a single question object where the list belongs",
			`{"intro":"","questions":{"name":"n","message":"Name?"}}`,
			`{"intro":"","questions":[{"id":"n","text":"Name?","type":"text"}]}`},
		{"a JSON-encoded question list",
			`{"intro":"","questions":"[{\"id\":\"n\",\"text\":\"Name?\"}]"}`,
			`{"intro":"","questions":[{"id":"n","text":"Name?","type":"text"}]}`},
		{"a single option object is a list of one (confirm fills it)",
			q(`"type":"confirm","choices":{"name":"x"}`), want(yesNo)},
		{"whitespace is trimmed, numeric ids are text",
			`{"intro":"  Hi  ","questions":[{"id":7,"text":"  Name?  ","header":"  ","placeholder":" p "}],"outro":null}`,
			`{"intro":"Hi","questions":[{"id":"7","text":"Name?","type":"text","placeholder":"p"}]}`},
		{"mixed shapes in one call",
			`{"intro":"Setup","questions":[{"name":"db","message":"DB?","type":"list","choices":["pg","sqlite"]},{"id":"tok","text":"Token?","type":"password"},{"name":"ok","message":"Go?","type":"confirm"}]}`,
			`{"intro":"Setup","questions":[{"id":"db","text":"DB?","type":"select","options":[{"label":"pg"},{"label":"sqlite"}]},{"id":"tok","text":"Token?","type":"password"},{"id":"ok","text":"Go?",` + yesNo + `}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, canon(t, tt.in)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// q is one question "x"/"X?" with extra fields; want is its canonical form.
func q(fields string) string {
	if fields != "" {
		fields = "," + fields
	}
	return `{"intro":"","questions":[{"name":"x","message":"X?"` + fields + `}]}`
}

func want(fields string) string {
	return `{"intro":"","questions":[{"id":"x","text":"X?",` + fields + `}]}`
}

func TestNormalizeAskUserRefusesWithTheFix(t *testing.T) {
	long := strings.Repeat("é", 2001)
	tests := []struct {
		name, in string
		want     []string
	}{
		{"not an object", `[1]`, []string{`arguments must be an object {"intro": "...", "questions": [...]}, got an array`}},
		{"not JSON", `{"intro":`, []string{`arguments are not valid JSON (unexpected EOF); send an object {"intro": "...", "questions": [...]}`}},
		{"missing everything", `{}`, []string{
			`intro is missing; add a short "intro" that tells the user why you are asking`,
			`questions is missing; add "questions": a list of 1 to 4 questions, each {"id", "text", "type"}`}},
		{"unknown top-level field", `{"intro":"","title":"T","questions":[{"id":"a","text":"A"}]}`,
			[]string{`arguments have unknown field "title"; ask_user takes intro, questions and outro`}},
		{"intro of the wrong type", `{"intro":{"x":1},"questions":[{"id":"a","text":"A"}]}`,
			[]string{`intro must be a string, got an object`}},
		{"no questions", `{"intro":"","questions":[]}`, []string{`questions is empty; ask 1 to 4 questions`}},
		{"five questions", `{"intro":"","questions":[{},{},{},{},{}]}`,
			[]string{`questions has 5 items; ask at most 4 questions per call and ask the rest in a later call`}},
		{"a question that is not an object", `{"intro":"","questions":["What?"]}`,
			[]string{`questions[0] must be an object {"id", "text", "type"}, got a string`}},
		{"missing id and text", `{"intro":"","questions":[{"id":"a","text":"A"},{"type":"text"}]}`, []string{
			`questions[1].id is missing or empty; give every question a short unique id such as "q2"`,
			`questions[1].text is missing or empty; put the question itself in "text"`}},
		{"blank id", `{"intro":"","questions":[{"id":"  ","text":"A"}]}`,
			[]string{`questions[0].id is missing or empty; give every question a short unique id such as "q1"`}},
		{"duplicate ids", `{"intro":"","questions":[{"id":"a","text":"A"},{"id":"b","text":"B"},{"name":"a","message":"A again"}]}`,
			[]string{`questions[2].id "a" repeats questions[0].id; give every question a unique id`}},
		{"unknown type", `{"intro":"","questions":[{"id":"a","text":"A","type":"slider"}]}`,
			[]string{`questions[0].type "slider" is not supported; use "select", "text" or "password"`}},
		{"type of the wrong kind", `{"intro":"","questions":[{"id":"a","text":"A","type":3}]}`,
			[]string{`questions[0].type must be "select", "text" or "password", got a number`}},
		{"select with one option", `{"intro":"","questions":[{"id":"a","text":"A","type":"select","options":["only"]}]}`,
			[]string{`questions[0] is a select question with 1 option(s); give it at least 2 options, or make it "type": "text"`}},
		{"select without options", `{"intro":"","questions":[{"id":"a","text":"A","type":"list"}]}`,
			[]string{`questions[0] is a select question with 0 option(s); give it at least 2 options, or make it "type": "text"`}},
		{"too many options", fmt.Sprintf(`{"intro":"","questions":[{"id":"a","text":"A","options":[%s]}]}`, strings.TrimSuffix(strings.Repeat(`"o",`, 21), ",")),
			[]string{`questions[0].options has 21 items; offer at most 20`}},
		{"duplicate option answers", `{"intro":"","questions":[{"id":"a","text":"A","options":["x",{"label":"X","value":"x"}]}]}`,
			[]string{`questions[0].options[1] repeats the answer "x" of options[0]; give every option a distinct label or value`}},
		{"text with options", `{"intro":"","questions":[{"id":"a","text":"A","type":"input","choices":["x","y"]}]}`,
			[]string{`questions[0] is a text question but has options; make it "type": "select" or drop the options`}},
		{"multiSelect on text", `{"intro":"","questions":[{"id":"a","text":"A","type":"password","multiSelect":true}]}`,
			[]string{`questions[0].multiSelect applies only to select questions; drop it or make the question a select`}},
		{"multiSelect not a boolean", `{"intro":"","questions":[{"id":"a","text":"A","options":["x","y"],"multiSelect":"yes"}]}`,
			[]string{`questions[0].multiSelect must be true or false`}},
		{"option without a label", `{"intro":"","questions":[{"id":"a","text":"A","options":["x",{"description":"d"},"y"]}]}`,
			[]string{`questions[0].options[1].label is missing or empty; give every option a label`}},
		{"option of the wrong kind", `{"intro":"","questions":[{"id":"a","text":"A","options":["x",["y"]]}]}`, []string{
			`questions[0].options[1] must be a string or an object {"label", "value", "description"}, got an array`,
			`questions[0] is a select question with 1 option(s); give it at least 2 options, or make it "type": "text"`}},
		{"unknown option field", `{"intro":"","questions":[{"id":"a","text":"A","options":[{"label":"x","color":"red"},"y"]}]}`,
			[]string{`questions[0].options[0] has unknown field "color"; an option takes label, value and description`}},
		{"unknown question fields are named, a few at most", `{"intro":"","questions":[{"id":"a","text":"A","d":1,"c":2,"b":3,"a":4}]}`,
			[]string{`questions[0] has unknown field "a", "b", "c" (and 1 more); a question takes id, text, type, options, multiSelect, header and placeholder`}},
		{"nested garbage as text", `{"intro":"","questions":[{"id":"a","text":[[[{"x":[]}]]]}]}`, []string{
			`questions[0].text must be a string, got an array`,
			`questions[0].text is missing or empty; put the question itself in "text"`}},
		{"text too long", `{"intro":"","questions":[{"id":"a","text":"` + long + `"}]}`,
			[]string{`questions[0].text is 2001 characters; keep it to at most 2000`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, got := normalizeAskUser(json.RawMessage(tt.in))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPrepareRefusalIsAFollowupWithAFewProblems(t *testing.T) {
	var qs []string
	for i := 0; i < 4; i++ {
		qs = append(qs, `{"type":"select","options":[]}`)
	}
	_, res := Prepare(json.RawMessage(`{"intro":"","questions":[` + strings.Join(qs, ",") + `]}`))
	if res == nil || res.Success || !res.NeedsFollowup || protocol.IsTerminal(*res) {
		t.Fatalf("Prepare = %+v, want a follow-up refusal", res)
	}
	if !strings.HasPrefix(res.Error, "ask_user arguments need fixing: questions[0].id is missing") ||
		!strings.HasSuffix(res.Error, "; and 7 more") {
		t.Errorf("error = %q", res.Error)
	}
}

// TestNormalizeAskUserBadInput throws the bad input at the
// normaliser: it answers quickly with a short, clear refusal.
func TestNormalizeAskUserBadInput(t *testing.T) {
	mb := strings.Repeat("x", 1<<20)
	var many []string
	for i := 0; i < 500; i++ {
		many = append(many, fmt.Sprintf(`{"id":"q%d","text":"Q%d?"}`, i, i))
	}
	deep := strings.Repeat("[", 5000) + strings.Repeat("]", 5000)
	garbageKeys := make([]string, 1000)
	for i := range garbageKeys {
		garbageKeys[i] = fmt.Sprintf(`"k%04d":{"x":[1,2,{"y":null}]}`, i)
	}
	tests := []struct {
		name, in, want string
	}{
		{"hundreds of questions", `{"intro":"","questions":[` + strings.Join(many, ",") + `]}`, "questions has 500 items"},
		{"megabyte intro", `{"intro":"` + mb + `","questions":[{"id":"a","text":"A"}]}`, "intro is 1048576 characters; keep it to at most 4000"},
		{"megabyte id", `{"intro":"","questions":[{"id":"` + mb + `","text":"A"}]}`, "questions[0].id is 1048576 characters; keep it to at most 64"},
		{"megabyte type", `{"intro":"","questions":[{"id":"a","text":"A","type":"` + mb + `"}]}`, `is not supported`},
		{"deeply nested questions", `{"intro":"","questions":` + deep + `}`, "questions[0] must be an object"},
		{"a thousand garbage keys", `{"intro":"","questions":[{"id":"a","text":"A",` + strings.Join(garbageKeys, ",") + `}]}`, `(and 997 more)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, res := Prepare(json.RawMessage(tt.in))
			if res == nil || !res.NeedsFollowup || !strings.Contains(res.Error, tt.want) {
				t.Fatalf("Prepare = %+v, want a follow-up naming %q", res, tt.want)
			}
			if len(res.Error) > 2000 {
				t.Errorf("refusal is %d bytes long; it should stay short", len(res.Error))
			}
		})
	}
}

// FuzzNormalizeAskUser: the normaliser never panics, and what it accepts is
// canonical — valid against the tool's schema, within the spec's bounds, and
// a fixed point of normalisation.
func FuzzNormalizeAskUser(f *testing.F) {
	for _, s := range []string{
		`{"intro":"Hi","questions":[{"id":"db","text":"Which?","type":"select","options":[{"label":"a","value":"1"},"b"],"multiSelect":true}]}`,
		`{"intro":"","questions":{"name":"n","message":"M","type":"confirm"}}`,
		`{"intro":"","questions":"[{\"name\":\"n\",\"message\":\"M\",\"type\":\"checkbox\",\"choices\":[1,2]}]"}`,
		`{"intro":"","questions":[{"name":"a","message":"b","type":"expand","choices":[{"key":"y","name":"Y","value":true},{"type":"separator"},{"value":"z"}]}]}`,
		`{"intro":1,"questions":[{"id":2,"text":false,"type":"Password","header":null}],"outro":"o"}`,
		`[]`, `null`, `{"questions":[[],[],[]]}`, `{"intro":"","questions":[{"id":"a","text":"A"},{"id":"a","text":"B"}]}`,
	} {
		f.Add([]byte(s))
	}
	sch, err := schema.Compile(Name, Schema)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, problems := normalizeAskUser(in)
		if len(problems) > 0 {
			for _, p := range problems {
				if p == "" {
					t.Fatal("empty problem text")
				}
			}
			return
		}
		b, err := json.Marshal(out)
		if err != nil {
			t.Fatal(err)
		}
		inst, err := schema.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Fatalf("accepted %s but the output %s fails the schema: %v", in, b, err)
		}
		checkCanonical(t, out)
		again, problems := normalizeAskUser(b)
		if len(problems) > 0 {
			t.Fatalf("the output %s is refused when normalised again: %q", b, problems)
		}
		if diff := cmp.Diff(out, again); diff != "" {
			t.Fatalf("normalisation is not a fixed point for %s (-first +second):\n%s", b, diff)
		}
	})
}

// checkCanonical checks what the schema cannot: unique ids, options only on
// selects, multiSelect only on selects, non-blank ids and texts.
func checkCanonical(t *testing.T, a Args) {
	t.Helper()
	seen := map[string]bool{}
	for i, q := range a.Questions {
		if strings.TrimSpace(q.ID) == "" || strings.TrimSpace(q.Text) == "" || seen[q.ID] {
			t.Fatalf("question %d: blank or repeated id/text: %+v", i, q)
		}
		seen[q.ID] = true
		if q.Type == askSelect && len(q.Options) < askUserMinOptions {
			t.Fatalf("question %d: select with %d options", i, len(q.Options))
		}
		if q.Type != askSelect && (len(q.Options) > 0 || q.MultiSelect) {
			t.Fatalf("question %d: %s with options or multiSelect", i, q.Type)
		}
	}
}
