package tools

import (
	"context"

	"steerable.dev/sidecar/protocol"
)

// Approver decides whether a call may run (STEERABLE_APPROVALS=host). An
// error counts as a denial.
type Approver interface {
	Approve(ctx context.Context, req protocol.ApprovalRequestParams) (protocol.ApprovalRequestResult, error)
}

// needsApproval says which modes are asked about: those that touch the
// user's machine or cannot be undone.
func needsApproval(m protocol.Mode) bool {
	return m == protocol.ModeLocal || m == protocol.ModeDestructive
}

var _ Approver = Host(nil)
