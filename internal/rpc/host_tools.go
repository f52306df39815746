package rpc

import (
	"context"

	"steerable.dev/sidecar/protocol"
)

// hostToolsRegister answers host_tools.register: the host's tools replace
// its previous set. A set the registry refuses (an invalid schema, a name
// listed twice, a name another source owns — the message names both) is
// -32602 and changes nothing.
func hostToolsRegister(_ context.Context, s *Server, p protocol.HostToolsRegisterParams) (any, error) {
	if s.svc.HostTools == nil {
		return nil, protocol.Errorf(protocol.CodePolicyDenied, "this sidecar does not take host tools")
	}
	n, err := s.svc.HostTools.Register(p.Tools)
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "host_tools.register refused, nothing changed: %v", err)
	}
	return protocol.HostToolsRegisterResult{Registered: n}, nil
}
