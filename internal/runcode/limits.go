package runcode

import (
	"fmt"
	"time"
)

// Limits bound one program (SPEC §4.6). cmd fills them from the
// Config; zero fields take the defaults.
type Limits struct {
	// MaxCalls is how many nested tool calls one program may make
	// (STEERABLE_RUN_CODE_MAX_CALLS). The first call over it is refused —
	// the program gets CallLimitError and may still return — and a second
	// one ends the program.
	MaxCalls int
	// Timeout covers the whole run, nested calls included
	// (STEERABLE_RUN_CODE_TIMEOUT_MS); then the process tree is killed.
	Timeout time.Duration
	// MaxResultBytes bounds the JSON of the return value
	// (STEERABLE_RUN_CODE_MAX_RESULT_BYTES).
	MaxResultBytes int
	// MaxOutputBytes is what is kept of stdout and of stderr, head and
	// tail (STEERABLE_BASH_MAX_OUTPUT_BYTES, shared with bash).
	MaxOutputBytes int
	// MaxFrameBytes bounds one message from the child: a nested call can
	// carry as much as a host's tool.invoke (STEERABLE_MAX_FRAME_BYTES).
	MaxFrameBytes int
}

// The defaults and the fixed bounds. MaxCodeChars counts characters (code
// points), as the model's tokenizer-independent measure of a program.
const (
	DefaultMaxCalls       = 32
	DefaultTimeout        = 60 * time.Second
	DefaultMaxResultBytes = 1 << 20
	DefaultMaxOutputBytes = 1 << 20
	DefaultMaxFrameBytes  = 16 << 20
	MaxCodeChars          = 100000
	// MaxInflightCalls is how many nested calls of one program run at once
	// (threads); further calls wait, so memory stays bounded at this many
	// frames.
	MaxInflightCalls = 8
)

func (l Limits) withDefaults() Limits {
	if l.MaxCalls <= 0 {
		l.MaxCalls = DefaultMaxCalls
	}
	if l.Timeout <= 0 {
		l.Timeout = DefaultTimeout
	}
	if l.MaxResultBytes <= 0 {
		l.MaxResultBytes = DefaultMaxResultBytes
	}
	if l.MaxOutputBytes <= 0 {
		l.MaxOutputBytes = DefaultMaxOutputBytes
	}
	if l.MaxFrameBytes <= 0 {
		l.MaxFrameBytes = DefaultMaxFrameBytes
	}
	// The done frame carries the whole return value.
	l.MaxFrameBytes = max(l.MaxFrameBytes, l.MaxResultBytes+64<<10)
	return l
}

// callLimitMessage is the refusal of the first call over the limit.
func (l Limits) callLimitMessage() string {
	return fmt.Sprintf("run_code allows at most %d nested tool calls per program (STEERABLE_RUN_CODE_MAX_CALLS); "+
		"this call was not made: do fewer calls per program (batch the work, or split it over several run_code calls)", l.MaxCalls)
}

// boundResult enforces MaxResultBytes on a done, whatever the child is: the
// runner checks it before it sends, but a program can write a frame of its
// own to fd 3, up to MaxFrameBytes. A value over the limit becomes the
// failure the runner would have reported.
func (l Limits) boundResult(d Done) Done {
	if !d.OK || len(d.Value) <= l.MaxResultBytes {
		return d
	}
	return Done{Kind: KindResult, Error: fmt.Sprintf("ValueError: the return value is %d bytes of JSON, over the limit of %d "+
		"(STEERABLE_RUN_CODE_MAX_RESULT_BYTES); return less: a summary, a count or a slice", len(d.Value), l.MaxResultBytes)}
}

// String is the limits for checks.run_code.
func (l Limits) String() string {
	return fmt.Sprintf("at most %d nested calls, %d ms, results of %d bytes", l.MaxCalls, l.Timeout.Milliseconds(), l.MaxResultBytes)
}
