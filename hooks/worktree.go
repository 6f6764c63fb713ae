package hooks

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ResolveWorktreePath turns the path a WorktreeCreate hook printed into the
// worktree's absolute path, with Claude Code's checks: a relative path is
// relative to the project root (the hook's cwd is already joined to it),
// with . and .. collapsed; no component below the project root may be a
// symbolic link (a link committed to the repository could send the
// worktree elsewhere); and the result must be a directory.
func ResolveWorktreePath(root, p string) (string, error) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	p = filepath.Clean(p)
	if rel, err := filepath.Rel(root, p); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		cur := root
		for _, seg := range strings.Split(rel, string(filepath.Separator)) {
			cur = filepath.Join(cur, seg)
			if st, err := os.Lstat(cur); err == nil && st.Mode()&os.ModeSymlink != 0 {
				return "", fmt.Errorf("the worktree path %s passes through the symbolic link %s inside the project", p, cur)
			}
		}
	}
	st, err := os.Stat(p)
	switch {
	case err != nil:
		return "", fmt.Errorf("the worktree path %s is not a directory: %v", p, err)
	case !st.IsDir():
		return "", fmt.Errorf("the worktree path %s is not a directory", p)
	}
	return p, nil
}
