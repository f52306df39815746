package web

import (
	"errors"
	"fmt"
	"sync/atomic"
)

// ErrCapReached is wrapped by a session cap refusal.
var ErrCapReached = errors.New("session cap reached")

// CapError names the exhausted limit and the variable that sets it, so the
// error carries its own fix (tools-spec "Bounds").
type CapError struct {
	What  string // "web_fetch calls"
	Limit int64
	Var   string
}

func (e *CapError) Error() string {
	return fmt.Sprintf("this session reached its limit of %d %s (%s); continue without it, or ask the user to raise %s (0 = no cap) and restart the sidecar",
		e.Limit, e.What, e.Var, e.Var)
}

func (e *CapError) Unwrap() error { return ErrCapReached }

// Cap is a per-session counter (one sidecar process serves one session).
// A call counts once admitted, even if it then fails (SPEC §4.3).
type Cap struct {
	limit int64 // 0 = no cap
	used  atomic.Int64
	what  string
	env   string
}

// NewCap returns a counter admitting limit calls (0 disables it).
func NewCap(limit int, what, envVar string) *Cap {
	return &Cap{limit: int64(limit), what: what, env: envVar}
}

// Admit counts one call, or refuses it once the limit is reached.
func (c *Cap) Admit() error {
	n := c.used.Add(1)
	if c.limit > 0 && n > c.limit {
		c.used.Add(-1)
		return &CapError{What: c.what, Limit: c.limit, Var: c.env}
	}
	return nil
}

// Used is the number of admitted calls.
func (c *Cap) Used() int64 { return c.used.Load() }
