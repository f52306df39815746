package prompt

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"steerable.dev/sidecar/protocol"
)

// ask puts every question in order. Ctrl-C or Ctrl-D at any prompt cancels
// the whole set: partial answers are not returned.
func (s *session) ask(req protocol.AskUserRequestParams) (protocol.AskUserRequestResult, error) {
	if req.Intro != "" {
		s.println(req.Intro)
	}
	answers := make(map[string]any, len(req.Questions))
	for i, q := range req.Questions {
		s.println("")
		s.println(heading(i, len(req.Questions), q))
		a, err := s.answer(q)
		switch {
		case s.ctx.Err() != nil:
			return protocol.AskUserRequestResult{}, s.ctx.Err()
		case errors.Is(err, errInterrupted):
			s.println("(cancelled)")
			return protocol.AskUserRequestResult{Cancelled: true}, nil
		case err != nil:
			return protocol.AskUserRequestResult{}, fmt.Errorf("reading the answer from the terminal: %w", err)
		}
		answers[q.ID] = a
	}
	if req.Outro != "" {
		s.println("")
		s.println(req.Outro)
	}
	return protocol.AskUserRequestResult{Answers: answers}, nil
}

// heading is the question line: "(2/3) [Header] Text (e.g. placeholder)".
func heading(i, n int, q protocol.AskUserQuestion) string {
	var b strings.Builder
	fmt.Fprintf(&b, "(%d/%d) ", i+1, n)
	if q.Header != "" {
		fmt.Fprintf(&b, "[%s] ", q.Header)
	}
	b.WriteString(q.Text)
	if q.Placeholder != "" {
		fmt.Fprintf(&b, " (e.g. %s)", q.Placeholder)
	}
	return b.String()
}

// answer reads one question's answer in its type's way.
func (s *session) answer(q protocol.AskUserQuestion) (any, error) {
	switch q.Type {
	case "password":
		return s.readLine("> ", true)
	case "select":
		return s.choose(q)
	}
	return s.readLine("> ", false)
}

// choose lists the options numbered and reads a choice: a number or a label,
// several separated by commas or spaces for multiSelect. A wrong entry is
// explained and asked again.
func (s *session) choose(q protocol.AskUserQuestion) (any, error) {
	for i, o := range q.Options {
		line := fmt.Sprintf("  %d) %s", i+1, o.Label)
		if o.Description != "" {
			line += " — " + o.Description
		}
		s.println(line)
	}
	prompt := fmt.Sprintf("Choose 1-%d: ", len(q.Options))
	if q.MultiSelect {
		prompt = fmt.Sprintf("Choose any of 1-%d, separated by commas (empty for none): ", len(q.Options))
	}
	for {
		in, err := s.readLine(prompt, false)
		if err != nil {
			return nil, err
		}
		picked, problem := parseChoice(in, q.Options, q.MultiSelect)
		if problem == "" {
			if q.MultiSelect {
				return picked, nil
			}
			return picked[0], nil
		}
		s.println(problem)
	}
}

// parseChoice turns what the person typed into option values (an option's
// value, else its label), or a problem to show.
func parseChoice(in string, opts []protocol.AskUserOption, multi bool) ([]string, string) {
	in = strings.TrimSpace(in)
	if in == "" && !multi {
		return nil, fmt.Sprintf("Enter a number from 1 to %d.", len(opts))
	}
	fields := []string{in}
	if multi {
		fields = strings.FieldsFunc(in, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
	}
	picked := []string{}
	for _, f := range fields {
		o, ok := lookup(f, opts)
		if !ok {
			return nil, fmt.Sprintf("%q is not one of the choices; enter a number from 1 to %d.", f, len(opts))
		}
		v := o.Value
		if v == "" {
			v = o.Label
		}
		picked = append(picked, v)
	}
	return picked, ""
}

// lookup finds an option by its number or by its label (any case).
func lookup(f string, opts []protocol.AskUserOption) (protocol.AskUserOption, bool) {
	if n, err := strconv.Atoi(f); err == nil && n >= 1 && n <= len(opts) {
		return opts[n-1], true
	}
	for _, o := range opts {
		if strings.EqualFold(f, o.Label) {
			return o, true
		}
	}
	return protocol.AskUserOption{}, false
}

// readLine reads one line with the given prompt; hidden input is not echoed.
func (s *session) readLine(prompt string, hidden bool) (string, error) {
	var line string
	var err error
	if hidden {
		line, err = s.line.ReadPassword(prompt)
	} else {
		s.line.SetPrompt(prompt)
		line, err = s.line.ReadLine()
	}
	if errors.Is(err, io.EOF) {
		return "", errInterrupted
	}
	return line, err
}

func (s *session) println(text string) {
	s.line.Write([]byte(text + "\n"))
}
