package tools

import (
	"context"
	"encoding/json"
	"time"

	"github.com/rs/zerolog"

	"steerable.dev/sidecar/internal/askuser"
	"steerable.dev/sidecar/protocol"
)

// AskUserHandler puts one ask_user call's questions to the person: the
// desktop path routes them to the host (Host.AskUser), the CLI prompts on the
// terminal. The logic lives in internal/askuser; this file registers it.
type AskUserHandler = askuser.Handler

// askUser is the ask_user tool.
type askUser struct{ asker askuser.Asker }

// NewAskUser returns ask_user over handler; timeout > 0 bounds the wait for
// the answers (STEERABLE_ASK_USER_TIMEOUT_MS).
func NewAskUser(handler AskUserHandler, timeout time.Duration, log zerolog.Logger) Tool {
	return &askUser{asker: askuser.Asker{Handler: handler, Timeout: timeout,
		Log: log.With().Str("tool", askUserName).Logger(), HostGone: ErrHostGone}}
}

func (t *askUser) Descriptor() protocol.ToolDescriptor { return askuser.Descriptor() }

func (t *askUser) Prepare(args json.RawMessage) (json.RawMessage, *protocol.ToolResult) {
	return askuser.Prepare(args)
}

func (t *askUser) Run(ctx context.Context, call Call) protocol.ToolResult {
	var args askuser.Args
	if err := json.Unmarshal(call.Arguments, &args); err != nil {
		return Followup("arguments for ask_user do not decode: %v", err)
	}
	return t.asker.Ask(ctx, call.ID, args)
}

var (
	_ Tool           = (*askUser)(nil)
	_ Preparer       = (*askUser)(nil)
	_ AskUserHandler = Host(nil)
)
