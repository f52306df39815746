package askuser

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/clip"
	"steerable.dev/sidecar/protocol"
)

// passwordMask stands for a password answer wherever a person or a log could
// read it; the answer itself is only in data.answers. Fixed width, so the
// length does not leak either.
const passwordMask = "********"

// summaryClip bounds one answer (and one question text) in the message, and
// summaryItems one list; the full answer stays in data.answers.
const (
	summaryClip  = 200
	summaryItems = 20 // items of one multiSelect answer
)

// checkAnswers keeps the answers that belong to a question, in the shape the
// question calls for: a list of strings for multiSelect (a lone string
// becomes a one-element list), else a string (a one-element list is
// unwrapped). Answers for questions that were not asked, and answers of the
// wrong type, are dropped and logged by id, never by value.
func checkAnswers(qs []protocol.AskUserQuestion, got map[string]any, log zerolog.Logger) map[string]any {
	byID := make(map[string]protocol.AskUserQuestion, len(qs))
	for _, q := range qs {
		byID[q.ID] = q
	}
	out := map[string]any{}
	var unknown, wrong []string
	for id, v := range got {
		q, ok := byID[id]
		if !ok {
			unknown = append(unknown, clip.Short(id, 64))
			continue
		}
		if a, ok := shapeAnswer(q, v); ok {
			out[id] = a
		} else {
			wrong = append(wrong, id)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		log.Warn().Int("count", len(unknown)).Strs("questionIds", unknown[:min(len(unknown), 10)]).
			Msg("ask_user: answers for questions that were not asked dropped")
	}
	if len(wrong) > 0 {
		sort.Strings(wrong)
		log.Warn().Strs("questionIds", wrong).Msg("ask_user: answers of the wrong type dropped (want a string, or a list of strings for multiSelect)")
	}
	return out
}

// shapeAnswer returns v in the shape q's answer takes.
func shapeAnswer(q protocol.AskUserQuestion, v any) (any, bool) {
	var list []string
	switch x := v.(type) {
	case string:
		list = []string{x}
	case []string: // from an in-process handler (the terminal)
		list = x
	case []any:
		list = make([]string, 0, len(x))
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, false
			}
			list = append(list, s)
		}
	default:
		return nil, false
	}
	if q.MultiSelect {
		return list, true
	}
	if len(list) != 1 {
		return nil, false
	}
	return list[0], true
}

// answeredIDs lists the questions that got an answer, in question order.
func answeredIDs(qs []protocol.AskUserQuestion, answers map[string]any) []string {
	out := []string{}
	for _, q := range qs {
		if _, ok := answers[q.ID]; ok {
			out = append(out, q.ID)
		}
	}
	return out
}

// maskAnswers is answers with every password replaced by the mask, for logs.
func maskAnswers(qs []protocol.AskUserQuestion, answers map[string]any) map[string]any {
	out := make(map[string]any, len(answers))
	for _, q := range qs {
		if a, ok := answers[q.ID]; ok {
			out[q.ID] = displayAnswer(q, a)
		}
	}
	return out
}

// summarize is the result message: each question with what the person
// answered, passwords masked, long answers clipped.
func summarize(qs []protocol.AskUserQuestion, answers map[string]any) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The user answered %d of %d question(s):", len(answeredIDs(qs, answers)), len(qs))
	for _, q := range qs {
		shown := "(no answer)"
		if a, ok := answers[q.ID]; ok {
			shown = displayAnswer(q, a)
		}
		fmt.Fprintf(&b, "\n- %s (%s): %s", clip.Short(q.Text, summaryClip), q.ID, shown)
	}
	return b.String()
}

// displayAnswer renders one answer for people and logs.
func displayAnswer(q protocol.AskUserQuestion, a any) string {
	if q.Type == askPassword {
		return passwordMask
	}
	switch x := a.(type) {
	case string:
		return fmt.Sprintf("%q", clip.Short(x, summaryClip))
	case []string:
		quoted := make([]string, 0, min(len(x), summaryItems)+1)
		for _, s := range x[:min(len(x), summaryItems)] {
			quoted = append(quoted, fmt.Sprintf("%q", clip.Short(s, summaryClip)))
		}
		if len(x) > summaryItems {
			quoted = append(quoted, fmt.Sprintf("… %d more", len(x)-summaryItems))
		}
		return "[" + strings.Join(quoted, ", ") + "]"
	}
	return ""
}
