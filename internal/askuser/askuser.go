// Package askuser is the ask_user tool's logic (tools-spec "ask_user",
// SPEC §4.5): rewriting model JSON onto the canonical questions payload,
// putting the questions to a Handler (the host, or the terminal prompt) and
// shaping the answers it returns. It depends only on protocol, so the
// terminal prompt can implement a Handler without importing the tool
// registry; internal/tools registers it as a tool.
package askuser

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/clip"
	"steerable.dev/sidecar/protocol"
)

// Name is the tool's name.
const Name = "ask_user"

// Handler puts one ask_user call's questions to the person and waits
// for the answers: the seam the tools spec calls make_ask_user_tool(handler).
// The desktop path routes them to the host (Host.AskUser); the CLI prompts on
// the terminal. A handler honours ctx; an error, or a result with Cancelled,
// records empty answers.
type Handler interface {
	AskUser(ctx context.Context, req protocol.AskUserRequestParams) (protocol.AskUserRequestResult, error)
}

// errMalformedAnswer is a host reply that is neither {answers} nor
// {cancelled:true}.
var errMalformedAnswer = errors.New("the host replied to ask_user.request with something other than {answers} or {cancelled: true}")

// DecodeReply decodes a host's reply to ask_user.request, which must
// be an object: {answers} or {cancelled: true}.
func DecodeReply(raw json.RawMessage) (protocol.AskUserRequestResult, error) {
	var res protocol.AskUserRequestResult
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &res) != nil {
		return res, fmt.Errorf("%w: %s", errMalformedAnswer, clip.Short(string(raw), 80))
	}
	return res, nil
}

// Asker puts one call's questions to Handler and shapes what comes back.
type Asker struct {
	Handler Handler
	Timeout time.Duration // 0: wait; > 0 bounds the wait (STEERABLE_ASK_USER_TIMEOUT_MS)
	Log     zerolog.Logger
	// HostGone is the error (matched with errors.Is) by which Handler says
	// no host is connected to ask.
	HostGone error
}

// Descriptor is ask_user's descriptor as the model is offered it.
func Descriptor() protocol.ToolDescriptor {
	return protocol.ToolDescriptor{
		Name: Name,
		Description: "Ask the user 1 to 4 structured questions and wait for the answers. Use it when a decision or a " +
			"fact only the user has blocks your work; do not use it for confirmations you can infer. Each question has a " +
			"unique id, the question text and a type: select (2 or more options; multiSelect for several answers), text, or " +
			"password (masked in messages). The result's data.answers maps each question id to the answer (a list for " +
			"multiSelect); data.cancelled is true when the user did not answer.",
		Parameters: Schema,
		Mode:       protocol.ModeRead,
		Exposure:   protocol.ExposureDirect,
	}
}

// Ask asks and waits. Every way of not getting answers — no host, a host
// without the method, an error reply, a cancel, $/cancelRequest, the timeout
// — ends the call with empty answers and cancelled:true, never a hung turn.
func (t Asker) Ask(ctx context.Context, callID string, args Args) protocol.ToolResult {
	wait := ctx
	if t.Timeout > 0 {
		var cancel context.CancelFunc
		wait, cancel = context.WithTimeout(ctx, t.Timeout)
		defer cancel()
	}
	res, err := t.Handler.AskUser(wait, protocol.AskUserRequestParams{
		CallID: callID, Intro: args.Intro, Questions: args.Questions, Outro: args.Outro,
	})
	log := t.Log.With().Str("callId", callID).Logger()
	if reason := t.unanswered(ctx, wait, res, err); reason != "" {
		log.Info().Str("reason", reason).Msg("ask_user: no answers")
		return cancelledResult(reason)
	}
	answers := checkAnswers(args.Questions, res.Answers, log)
	log.Info().Strs("answered", answeredIDs(args.Questions, answers)).Msg("ask_user: answered")
	log.Debug().Interface("answers", maskAnswers(args.Questions, answers)).Msg("ask_user: answers (passwords masked)")
	return ok(summarize(args.Questions, answers), map[string]any{"answers": answers, "cancelled": false})
}

// unanswered says why no answers came, or "" when they did.
func (t Asker) unanswered(ctx, wait context.Context, res protocol.AskUserRequestResult, err error) string {
	var hostErr *protocol.Error
	switch {
	case ctx.Err() != nil:
		return "the call was cancelled"
	case wait.Err() != nil:
		return fmt.Sprintf("no answer within %s (STEERABLE_ASK_USER_TIMEOUT_MS=%d)", t.Timeout, t.Timeout.Milliseconds())
	case t.HostGone != nil && errors.Is(err, t.HostGone):
		return "no host is connected to ask the user"
	case errors.Is(err, protocol.ErrMethodNotFound):
		return "the host does not handle ask_user.request"
	case errors.As(err, &hostErr):
		return "the host answered with an error: " + clip.Short(hostErr.Message, 200)
	case err != nil:
		return clip.Short(err.Error(), 200)
	case res.Cancelled:
		return "the user cancelled"
	}
	return ""
}

// cancelledResult records empty answers. It is a success: the tool did its
// job, and the model reads from the message that it must go on without them.
func cancelledResult(reason string) protocol.ToolResult {
	msg := fmt.Sprintf("The user did not answer (%s); no answers were recorded. Continue without them, "+
		"or ask again later only if you cannot proceed otherwise.", reason)
	return ok(msg, map[string]any{"answers": map[string]any{}, "cancelled": true})
}

// Schema is what the model is offered. Prepare has already turned
// aliases and Inquirer shapes into this, so validation only backs it up.
var Schema = json.RawMessage(fmt.Sprintf(`{
  "type": "object",
  "required": ["intro", "questions"],
  "additionalProperties": false,
  "properties": {
    "intro": {"type": "string", "maxLength": %[1]d, "description": "One or two sentences shown above the questions: why you are asking."},
    "questions": {
      "type": "array", "minItems": 1, "maxItems": %[2]d,
      "items": {
        "type": "object",
        "required": ["id", "text", "type"],
        "additionalProperties": false,
        "properties": {
          "id": {"type": "string", "minLength": 1, "maxLength": %[3]d, "description": "Unique key of this question's answer in data.answers."},
          "text": {"type": "string", "minLength": 1, "maxLength": %[4]d, "description": "The question."},
          "type": {"enum": ["select", "text", "password"]},
          "options": {"type": "array", "minItems": %[5]d, "maxItems": %[6]d, "description": "Choices of a select question.", "items": {
            "type": "object", "required": ["label"], "additionalProperties": false,
            "properties": {
              "label": {"type": "string", "minLength": 1, "maxLength": %[7]d},
              "value": {"type": "string", "maxLength": %[7]d, "description": "The answer recorded when chosen (default: the label)."},
              "description": {"type": "string", "maxLength": %[8]d}
            }}},
          "multiSelect": {"type": "boolean", "description": "select only: the answer is a list of the chosen values."},
          "header": {"type": "string", "maxLength": %[7]d, "description": "A short tag shown with the question."},
          "placeholder": {"type": "string", "maxLength": %[7]d, "description": "Hint shown in an empty text field."}
        }
      }
    },
    "outro": {"type": "string", "maxLength": %[1]d, "description": "Optional closing line shown below the questions."}
  }
}`, askUserMaxIntro, askUserMaxQuestions, askUserMaxID, askUserMaxText, askUserMinOptions, askUserMaxOptions, askUserMaxShort, askUserMaxDesc))

// ok is a successful result.
func ok(message string, data map[string]any) protocol.ToolResult {
	return protocol.ToolResult{Success: true, Message: message, Data: data}
}
