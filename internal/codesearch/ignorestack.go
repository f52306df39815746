package codesearch

import "strings"

// dirNode is one directory of a walk and the ignore files it holds. Nodes
// form a chain up to the top of the walk (the workspace root when the walk
// is inside it), so each entry is judged by every ignore file above it.
type dirNode struct {
	parent    *dirNode
	rel       string   // "/"-separated path from the top of the chain; "" at the top
	ignore    *ruleSet // .ignore
	gitignore *ruleSet // .gitignore
	exclude   *ruleSet // .git/info/exclude (only where .git is a directory)
	hasGit    bool     // a .git entry (directory or file) is here: a repository root
	inRepo    bool     // hasGit here or above: .gitignore files apply (ripgrep's require_git)
	ruled     *dirNode // nearest node at or above with rules or a .git, nil when none
}

// newDirNode links a node below parent once its ignore files are loaded.
func newDirNode(parent *dirNode, rel string, files ignoreFiles, gitAbove bool) *dirNode {
	n := &dirNode{parent: parent, rel: rel}
	n.load(files, gitAbove)
	return n
}

// load sets n's ignore files (n.parent and n.rel are set).
func (n *dirNode) load(files ignoreFiles, gitAbove bool) {
	n.ignore, n.gitignore, n.exclude, n.hasGit = files.ignore, files.gitignore, files.exclude, files.hasGit
	n.inRepo = n.hasGit || gitAbove || (n.parent != nil && n.parent.inRepo)
	n.ruled = n
	if n.ignore.empty() && n.gitignore.empty() && n.exclude.empty() && !n.hasGit {
		n.ruled = n.parent.ruledOrNil()
	}
}

// ignoreFiles is what a directory contributes to the rules.
type ignoreFiles struct {
	ignore, gitignore, exclude *ruleSet
	hasGit                     bool
}

// judge decides whether the entry rel (from the top of the chain, base its
// last component) in directory dir is ignored, the way ripgrep's ignore
// crate does:
//
//   - each kind of file is asked separately, nearest directory first, and
//     the nearest file with a matching rule decides for its kind (within a
//     file the last matching rule wins, so "!x" after "x" re-includes);
//   - the kinds rank .ignore, then .gitignore, then .git/info/exclude,
//     then the default set: a decision of a higher kind stands whatever
//     the lower ones say;
//   - .gitignore and exclude files count only inside a repository, and
//     not past the root of the nearest one (a nested repository does not
//     inherit its parent's rules); .ignore files count everywhere.
func judge(dir *dirNode, rel, base string, isDir bool, defaults *ruleSet) verdict {
	var mGit, mExclude verdict
	sawGit := false
	for n := dir.ruled; n != nil; n = n.parent.ruledOrNil() {
		sub := relTo(n.rel, rel)
		if v := n.ignore.match(sub, base, isDir); v != unmatched {
			return v // the highest kind: nothing below can overrule it
		}
		if dir.inRepo && !sawGit {
			if mGit == unmatched {
				mGit = n.gitignore.match(sub, base, isDir)
			}
			if mExclude == unmatched {
				mExclude = n.exclude.match(sub, base, isDir)
			}
		}
		sawGit = sawGit || n.hasGit
	}
	switch {
	case mGit != unmatched:
		return mGit
	case mExclude != unmatched:
		return mExclude
	}
	return defaults.match(rel, base, isDir)
}

// ruledOrNil is the nearest ruled node at or above n (nil-safe).
func (n *dirNode) ruledOrNil() *dirNode {
	if n == nil {
		return nil
	}
	return n.ruled
}

// relTo is rel (from the top of the chain) relative to the directory at
// dirRel, which is one of its ancestors.
func relTo(dirRel, rel string) string {
	if dirRel == "" {
		return rel
	}
	return rel[len(dirRel)+1:]
}

// joinRel appends a name to a chain path.
func joinRel(dirRel, name string) string {
	if dirRel == "" {
		return name
	}
	return dirRel + "/" + name
}

// isHidden is ripgrep's rule on Unix: a name that starts with a dot.
func isHidden(name string) bool { return strings.HasPrefix(name, ".") }
