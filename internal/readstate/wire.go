package readstate

import "steerable.dev/sidecar/protocol"

// Resume is read_state.seed in protocol types: the host's record after a
// restart (SPEC §4.1 "Resume"). rpc depends on this shape, not on Store.
func (s *Store) Resume(p protocol.ReadStateSeedParams) (protocol.ReadStateSeedResult, error) {
	res, err := s.Seed(p.State, p.Messages)
	if err != nil {
		return protocol.ReadStateSeedResult{}, err
	}
	return protocol.ReadStateSeedResult{Seeded: res.Seeded, Skipped: res.Skipped}, nil
}

// Versions is read_state.get in protocol types: every tracked path and its
// version.
func (s *Store) Versions() protocol.ReadStateGetResult {
	return protocol.ReadStateGetResult{State: s.Snapshot()}
}
