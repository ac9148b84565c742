package rollout

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/imagebot/imagebot/internal/scan"
)

// Previous finds the tag img had before its current one, for `imagebot
// rollback` without --to: walking the default branch back from the tip
// through the files that reference img now, the version they held before
// the commit that brought the current one. refs are the tip's references
// of img, all at one tag.
func Previous(ctx context.Context, h History, refs []scan.Ref) (tag string, brought Commit, err error) {
	if len(refs) == 0 {
		return "", Commit{}, errors.New("no reference to roll back")
	}
	img := refs[0].Image
	in := map[string]bool{}
	for _, r := range refs {
		in[r.File] = true
	}
	st := refFiles(refs, func(f string) bool { return in[f] })
	cur := tagsOf(st, img)
	if len(cur) != 1 {
		return "", Commit{}, fmt.Errorf("%s is at several tags (%v): name the one to go back to with --to", img, cur)
	}
	var found error
	err = h.Changes(ctx, func(f string) bool { return in[f] }, func(ch Change) bool {
		st.back(ch)
		prev := tagsOf(st, img)
		switch {
		case len(prev) == 1 && prev[0] == cur[0]:
			return true
		case len(prev) == 1:
			tag, brought = prev[0], ch.Commit
		case len(prev) == 0:
			found = fmt.Errorf("%s came into the repository at %s in commit %s, with no earlier tag to go back to: name one with --to", img, cur[0], ch.Short())
		default:
			found = fmt.Errorf("before commit %s, %s was at several tags (%v): name the one to go back to with --to", ch.Short(), img, prev)
		}
		return false
	})
	var trunc *TruncatedError
	switch {
	case errors.As(err, &trunc):
		return "", Commit{}, fmt.Errorf("%s has been at %s for all of the %d commits looked at: name the tag to go back to with --to", img, cur[0], maxCommits)
	case err != nil:
		return "", Commit{}, err
	case found != nil:
		return "", Commit{}, found
	case tag == "":
		return "", Commit{}, fmt.Errorf("%s has always been at %s on the default branch: name the tag to go back to with --to", img, cur[0])
	}
	return tag, brought, nil
}

// tagsOf is the distinct tags of img in the files, sorted.
func tagsOf(st *files[[]scan.Ref], img string) []string {
	seen := map[string]bool{}
	var out []string
	for _, refs := range st.byFile {
		for _, r := range refs {
			if r.Image == img && r.Tag != "" && !seen[r.Tag] {
				seen[r.Tag] = true
				out = append(out, r.Tag)
			}
		}
	}
	slices.Sort(out)
	return out
}
