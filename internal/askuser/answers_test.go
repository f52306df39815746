package askuser

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rs/zerolog"

	"steerable.dev/sidecar/protocol"
)

var nopLog = zerolog.Nop()

func TestCheckAnswers(t *testing.T) {
	qs := []protocol.AskUserQuestion{
		{ID: "one", Type: "select", Options: []protocol.AskUserOption{{Label: "a"}, {Label: "b"}}},
		{ID: "many", Type: "select", MultiSelect: true, Options: []protocol.AskUserOption{{Label: "a"}, {Label: "b"}}},
		{ID: "free", Type: "text"},
		{ID: "pw", Type: "password"},
	}
	tests := []struct {
		name string
		got  string
		want map[string]any
		logs []string
	}{
		{"shapes are kept", `{"one":"a","many":["a","b"],"free":"x","pw":"s3cret"}`,
			map[string]any{"one": "a", "many": []string{"a", "b"}, "free": "x", "pw": "s3cret"}, nil},
		{"a lone string for multiSelect becomes a list, a one-element list is unwrapped", `{"many":"a","one":["b"]}`,
			map[string]any{"many": []string{"a"}, "one": "b"}, nil},
		{"an empty multiSelect answer is no choice", `{"many":[]}`, map[string]any{"many": []string{}}, nil},
		{"answers for questions not asked are dropped and logged by id", `{"free":"x","ghost":"boo","zombie":["s3cret"]}`,
			map[string]any{"free": "x"}, []string{`"count":2`, `"questionIds":["ghost","zombie"]`, "not asked"}},
		{"wrong types are dropped and logged", `{"one":["a","b"],"free":5,"many":["a",1],"pw":{"x":"s3cret"}}`,
			map[string]any{}, []string{`"questionIds":["free","many","one","pw"]`, "wrong type"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got map[string]any
			if err := json.Unmarshal([]byte(tt.got), &got); err != nil {
				t.Fatal(err)
			}
			var logs bytes.Buffer
			out := checkAnswers(qs, got, zerolog.New(&logs))
			if diff := cmp.Diff(tt.want, out); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			for _, l := range tt.logs {
				if !strings.Contains(logs.String(), l) {
					t.Errorf("log %q lacks %q", logs.String(), l)
				}
			}
			if strings.Contains(logs.String(), "s3cret") || strings.Contains(logs.String(), "boo") {
				t.Errorf("log carries an answer value: %s", logs.String())
			}
		})
	}
}

func TestCheckAnswersFromAnInProcessHandler(t *testing.T) {
	qs := []protocol.AskUserQuestion{{ID: "one", Type: "select"}, {ID: "many", Type: "select", MultiSelect: true}}
	got := checkAnswers(qs, map[string]any{"one": []string{"b"}, "many": []string{"a", "c"}}, nopLog)
	if diff := cmp.Diff(map[string]any{"one": "b", "many": []string{"a", "c"}}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestAskUserMessageClipsAndCountsUnanswered(t *testing.T) {
	qs := []protocol.AskUserQuestion{{ID: "a", Text: "A?", Type: "text"}, {ID: "b", Text: "B?", Type: "select", MultiSelect: true}}
	many := make([]string, 25)
	for i := range many {
		many[i] = "x"
	}
	msg := summarize(qs, map[string]any{"b": many})
	want := "The user answered 1 of 2 question(s):\n- A? (a): (no answer)\n- B? (b): [" +
		strings.Repeat(`"x", `, 20) + "… 5 more]"
	if diff := cmp.Diff(want, msg); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	long := summarize(qs[:1], map[string]any{"a": strings.Repeat("y", 1<<20)})
	if len(long) > 400 || !strings.HasSuffix(long, "…\"") {
		t.Errorf("a megabyte answer is not clipped in the message (%d bytes)", len(long))
	}
}

func FuzzHostAnswer(f *testing.F) {
	for _, s := range []string{
		`{"answers":{"one":"a","many":["a","b"],"ghost":"x"}}`, `{"cancelled":true}`, `"yes"`, `null`, `[]`,
		`{"answers":{"one":["a"],"many":"b","free":5}}`, `{"answers":{"free":{"x":[1,{"y":null}]}}}`,
	} {
		f.Add([]byte(s))
	}
	qs := []protocol.AskUserQuestion{{ID: "one", Type: "select"}, {ID: "many", Type: "select", MultiSelect: true}, {ID: "free", Type: "text"}}
	f.Fuzz(func(t *testing.T, reply []byte) {
		if !json.Valid(reply) {
			return // the connection refuses invalid JSON before a reply reaches the tool
		}
		res, err := DecodeReply(reply)
		if err != nil {
			return
		}
		for id, a := range checkAnswers(qs, res.Answers, nopLog) {
			_, isList := a.([]string)
			_, isStr := a.(string)
			switch {
			case id == "many" && !isList, id != "many" && !isStr, id != "one" && id != "many" && id != "free":
				t.Fatalf("answer %q = %#v survived the check", id, a)
			}
		}
	})
}
