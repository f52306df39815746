package checkpoint

import (
	"strings"

	"steerable.dev/sidecar/internal/textedit"
	"steerable.dev/sidecar/protocol"
)

// Diff is the unified diff of the files the tools changed from checkpoint
// p.From to checkpoint p.To, or to the files as they are now.
func (s *Service) Diff(p protocol.CheckpointDiffParams) (protocol.CheckpointDiffResult, error) {
	sn := s.store.snapshot()
	from, ok := sn.checkpoint(p.From)
	if !ok {
		return protocol.CheckpointDiffResult{}, unknownCheckpoint(p.From)
	}
	rs := since(sn.records, from.Seq)
	if p.To != "" {
		to, ok := sn.checkpoint(p.To)
		if !ok {
			return protocol.CheckpointDiffResult{}, unknownCheckpoint(p.To)
		}
		if to.Seq < from.Seq {
			return protocol.CheckpointDiffResult{}, protocol.Errorf(protocol.CodeInvalidParams, "checkpoint %q is older than %q", p.To, p.From)
		}
		rs = rs[:len(rs)-len(since(rs, to.Seq))]
	}
	res := protocol.CheckpointDiffResult{NotKept: []string{}}
	var b strings.Builder
	for _, x := range spans(rs) {
		rel := s.ws.Rel(x.path)
		old, oldOK := s.sideText(x.target)
		var now string
		nowOK, nowExists := true, x.expect.State != StateAbsent
		if p.To == "" {
			cur, err := s.current(x.path)
			now, nowOK, nowExists = cur.data, err == nil, cur.exists
		} else {
			now, nowOK = s.sideText(x.expect)
		}
		if !oldOK || !nowOK {
			res.NotKept = append(res.NotKept, rel)
			continue
		}
		fromName, toName := "a/"+rel, "b/"+rel
		if x.target.State == StateAbsent {
			fromName = "/dev/null"
		}
		if !nowExists {
			toName = "/dev/null"
		}
		b.WriteString(textedit.DiffStrings(fromName, toName, old, now))
	}
	res.Diff = b.String()
	return res, nil
}

// sideText is a recorded side's content ("" for absent); false when it
// was not kept.
func (s *Service) sideText(sd Side) (string, bool) {
	switch sd.State {
	case StateAbsent:
		return "", true
	case StateKept:
		data, err := s.store.content(sd.Version)
		return data, err == nil
	}
	return "", false
}
