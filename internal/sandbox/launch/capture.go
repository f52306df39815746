package launch

import "steerable.dev/sidecar/internal/clip"

// Capture keeps a bounded view of one output stream: the first half of its
// budget and the last half, however much is written, so a command that
// prints gigabytes costs about max bytes of memory. The middle is replaced
// by clip's marker naming how many bytes were dropped.
type Capture = clip.Writer

// NewCapture keeps at most max bytes (max ≥ 2).
func NewCapture(max int) *Capture { return clip.NewWriter(clip.Halves(max, clip.Bytes)) }
