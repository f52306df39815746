package files

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// A manifest is read back at the next start from a directory outside the
// workspace that only the sidecar writes, but recovery runs with the
// sidecar's rights, outside any sandbox: a manifest that someone else
// wrote or that the disk mangled must never make it read, write or remove
// anything but what a commit of this workspace could have staged. So every
// path is checked before any is followed: a workspace path is clean,
// absolute and inside the workspace; a staged file and a backup are plain
// names beside the file they stand for, in the shape Commit gives them
// (.NAME.RANDOM.tmp, .NAME.RANDOM.del); a kept original is the plain name
// Commit gives it (N.orig) inside the transaction directory; a created
// directory is an ancestor of its file inside the workspace; digests are
// SHA-256 in hex. A manifest that fails any check is refused whole.

// Why a manifest is not followed: it does not decode (a commit died
// writing it, or the cleanup removing it), it is another workspace's, or
// it names something a commit never would.
var (
	errUndecodable = errors.New("the manifest does not decode")
	errForeign     = errors.New("the manifest belongs to another workspace")
	errManifest    = errors.New("the manifest names a path no commit of this workspace would")
)

// parseManifest decodes a transaction's manifest and checks it against
// workspace (clean and absolute).
func parseManifest(b []byte, workspace string) (manifest, error) {
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return manifest{}, fmt.Errorf("%w: %v", errUndecodable, err)
	}
	if m.Workspace != workspace {
		return m, fmt.Errorf("%w: %s, not %s", errForeign, m.Workspace, workspace)
	}
	for i, e := range m.Entries {
		if err := e.check(i, workspace); err != nil {
			return m, fmt.Errorf("%w: entry %d: %v", errManifest, i, err)
		}
	}
	return m, nil
}

// check validates entry i (see the comment above).
func (e entry) check(i int, workspace string) error {
	if err := inWorkspace("path", e.Path, workspace); err != nil {
		return err
	}
	var err error
	switch e.Op {
	case opReplace:
		err = errors.Join(e.sibling("tmp", e.Tmp, ".tmp"), hexDigest("before", e.Before), hexDigest("after", e.After),
			mustBeEmpty("backup", e.Backup), mustBeEmpty("madeDir", e.MadeDir))
		if e.Orig != strconv.Itoa(i)+".orig" {
			err = errors.Join(err, fmt.Errorf("orig %q is not the plain name %d.orig inside the transaction directory", e.Orig, i))
		}
	case opCreate:
		err = errors.Join(e.sibling("tmp", e.Tmp, ".tmp"), hexDigest("after", e.After), mustBeEmpty("orig", e.Orig),
			mustBeEmpty("backup", e.Backup), mustBeEmpty("before", e.Before), e.madeDirOK(workspace))
	case opDelete:
		err = errors.Join(e.sibling("backup", e.Backup, ".del"), mustBeEmpty("tmp", e.Tmp), mustBeEmpty("orig", e.Orig),
			mustBeEmpty("madeDir", e.MadeDir))
	default:
		return fmt.Errorf("unknown op %q", e.Op)
	}
	return err
}

// inWorkspace requires p to be clean, absolute and strictly inside
// workspace.
func inWorkspace(what, p, workspace string) error {
	if !filepath.IsAbs(p) || filepath.Clean(p) != p || p == workspace || !Within(workspace, p) {
		return fmt.Errorf("%s %q is not a clean absolute path inside the workspace %s", what, p, workspace)
	}
	return nil
}

// sibling requires p to be a file beside e.Path named .BASE.RANDOM+suffix,
// where BASE is e.Path's own name.
func (e entry) sibling(what, p, suffix string) error {
	dir, name := filepath.Split(p)
	rest, ok := strings.CutPrefix(name, "."+filepath.Base(e.Path)+".")
	if filepath.Clean(p) != p || filepath.Clean(dir) != filepath.Dir(e.Path) || !ok || !strings.HasSuffix(rest, suffix) ||
		!isBase36(strings.TrimSuffix(rest, suffix)) {
		return fmt.Errorf("%s %q is not a staging name beside %s", what, p, e.Path)
	}
	return nil
}

// madeDirOK: empty, or a directory inside the workspace that holds e.Path.
func (e entry) madeDirOK(workspace string) error {
	if e.MadeDir == "" {
		return nil
	}
	if err := inWorkspace("madeDir", e.MadeDir, workspace); err != nil {
		return err
	}
	if !Within(e.MadeDir, filepath.Dir(e.Path)) {
		return fmt.Errorf("madeDir %q does not hold %s", e.MadeDir, e.Path)
	}
	return nil
}

func mustBeEmpty(what, v string) error {
	if v != "" {
		return fmt.Errorf("%s %q does not belong to this op", what, v)
	}
	return nil
}

func hexDigest(what, v string) error {
	if len(v) != 64 || strings.Trim(v, "0123456789abcdef") != "" {
		return fmt.Errorf("%s %q is not a SHA-256 in hex", what, v)
	}
	return nil
}

func isBase36(s string) bool {
	return s != "" && len(s) <= 13 && strings.Trim(s, "0123456789abcdefghijklmnopqrstuvwxyz") == ""
}
