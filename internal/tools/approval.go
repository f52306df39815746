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

// HostApprover asks the host with the reverse request approval.request.
type HostApprover struct{ Host Host }

// Approve implements Approver.
func (a HostApprover) Approve(ctx context.Context, req protocol.ApprovalRequestParams) (protocol.ApprovalRequestResult, error) {
	var res protocol.ApprovalRequestResult
	err := a.Host.Call(ctx, protocol.MethodApprovalRequest, req, &res)
	return res, err
}

// needsApproval says which modes are asked about: those that touch the
// user's machine or cannot be undone.
func needsApproval(m protocol.Mode) bool {
	return m == protocol.ModeLocal || m == protocol.ModeDestructive
}

var _ Approver = HostApprover{}
