package serve

import (
	"fmt"
	"slices"
	"strings"

	git "github.com/go-git/go-git/v5"
)

// maxDirtyNamed bounds the paths a refusal names; the rest are counted.
const maxDirtyNamed = 5

// DirtyError is a checkout that serve will not run on: it has uncommitted
// changes or untracked files, which are a person's work.
type DirtyError struct {
	Dir   string
	Paths []string // sorted, as git status names them
}

func (e *DirtyError) Error() string {
	named := e.Paths[:min(len(e.Paths), maxDirtyNamed)]
	list := strings.Join(named, ", ")
	if more := len(e.Paths) - len(named); more > 0 {
		list += fmt.Sprintf(" and %d more", more)
	}
	return fmt.Sprintf("%s has uncommitted changes or untracked files (%s): serve does not run on a checkout someone works in; "+
		"commit or remove them, let serve clone the repository itself (--clone URL), "+
		"or pass --reset-checkout if %s is disposable and may be reset to origin's default branch", e.Dir, list, e.Dir)
}

// checkClean is a *DirtyError when the checkout at dir has uncommitted
// changes (staged or not) or untracked files that .gitignore does not
// ignore.
func checkClean(dir string) error {
	r, err := git.PlainOpen(dir)
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	wt, err := r.Worktree()
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	st, err := wt.Status()
	if err != nil {
		return fmt.Errorf("%s: status: %w", dir, err)
	}
	var paths []string
	for p, s := range st {
		if s.Staging != git.Unmodified || s.Worktree != git.Unmodified {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		return nil
	}
	slices.Sort(paths)
	return &DirtyError{Dir: dir, Paths: paths}
}
