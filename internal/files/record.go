package files

import (
	"errors"
	"io/fs"
)

// Origin names the tool call a write is made for, so a Recorder can file
// the change under it (checkpoints and undo).
type Origin struct {
	CallID string
	Tool   string
}

// Side is a file's state on one side of a write.
type Side struct {
	Exists bool
	Data   string      // the content, when Exists and not TooLarge
	Mode   fs.FileMode // permission and special bits, when Exists
	// TooLarge says the content was over the recorder's limit and was not
	// read; a recorder records the side as "not kept".
	TooLarge bool
}

// Written is one file a write changed: what was there and what is now.
type Written struct {
	Path   string // resolved absolute path
	Before Side
	After  Side
}

// Recorder is told of every change the file tools commit (WithRecorder):
// the single place where writes land is this package, so a recorder here
// sees each of them. Record runs after the change is on disk, under the
// caller's path locks, and must not write to the workspace.
type Recorder interface {
	Record(o Origin, changes []Written)
	// Limit is the largest content the recorder keeps; a previous content
	// larger than that is not read.
	Limit() int64
}

// WithRecorder makes every WriteFileAs and CommitAs report what it changed
// to r (nil: nobody).
func WithRecorder(r Recorder) Option {
	return func(w *Workspace) { w.rec = r }
}

// sideOf reads the content a write is about to replace, for the recorder;
// prev is the content when the caller already holds it.
func (w *Workspace) sideOf(abs string, prev *string, mode fs.FileMode) Side {
	if prev != nil {
		return Side{Exists: true, Data: *prev, Mode: mode}
	}
	data, fi, err := w.ReadFile(abs, w.rec.Limit())
	switch {
	case err == nil:
		return Side{Exists: true, Data: data, Mode: fi.Mode() & KeptModeBits}
	case errors.Is(err, fs.ErrNotExist):
		return Side{}
	}
	return Side{Exists: true, Mode: mode, TooLarge: true} // over the limit, or unreadable: not kept
}

// after is the recorder's view of data written with mode.
func (w *Workspace) after(data string, mode fs.FileMode) Side {
	return Side{Exists: true, Data: data, Mode: mode, TooLarge: int64(len(data)) > w.rec.Limit()}
}
