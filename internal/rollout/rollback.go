package rollout

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/scan"
	"github.com/imagebot/imagebot/internal/timefmt"
)

// RollbackOptions say what `imagebot rollback` asks for and where it
// looks.
type RollbackOptions struct {
	// Image is the normalized name of the image to move back.
	Image string
	// To is the tag to go back to; "" is the tag before the current one
	// (Previous).
	To string
	// History is the default branch whose tip the references were
	// scanned from; Tip names that tip in messages ("main@1a2b3c4d5e6f").
	History History
	Tip     string
	// Registry is asked whether To exists, and for its digest when a
	// reference is pinned; for a chart in an OCI registry, whether its
	// version is there.
	Registry plan.Registry
	// Charts lists the versions of a chart in an HTTP Helm repository
	// (nil: such a chart cannot be rolled back).
	Charts plan.ChartRepo
}

// LookupError is a rollback that failed because the registry did not
// answer, rather than because of what was asked: trying again later may
// succeed, so the CLI exits 2 for it, not 1.
type LookupError struct{ Err error }

func (e *LookupError) Error() string { return e.Err.Error() }
func (e *LookupError) Unwrap() error { return e.Err }

// Rollback is the update moving every tagged reference of o.Image among
// refs (the tip's scan) back to o.To, with the digest of o.To where a
// reference is pinned; nil when every reference is there already. A tag
// the registry does not list is refused: nodes could not pull it, and the
// rollback would make things worse.
func Rollback(ctx context.Context, refs []scan.Ref, o RollbackOptions) (*plan.Update, error) {
	image, to := o.Image, o.To
	var mine []scan.Ref
	for _, r := range refs {
		if r.Image == image && r.Tag != "" {
			// A chart's versions as the plan reads them: an
			// OCIRepository's tag as the version it spells.
			mine = append(mine, plan.ChartRef(r))
		}
	}
	if len(mine) == 0 {
		return nil, fmt.Errorf("%s has no tagged reference on %s", image, o.Tip)
	}
	why := fmt.Sprintf("Requested with `imagebot rollback --to %s`.", to)
	if to == "" {
		tag, brought, err := Previous(ctx, o.History, mine)
		if err != nil {
			return nil, err
		}
		to = tag
		why = fmt.Sprintf("`%s` is the tag %s had before commit `%s` (%s) brought `%s`.",
			tag, image, brought.Short(), timefmt.Stamp(brought.Time), mine[0].Tag)
	}
	// The references' name, parsed by the scan, is what the registry is
	// asked with; a chart's versions are listed as the plan lists them.
	reg, repo := plan.VersionsOf(o.Registry, o.Charts, mine[0])
	tags, err := reg.Tags(ctx, repo)
	if err != nil {
		return nil, &LookupError{fmt.Errorf("look up %s: %w", image, err)}
	}
	if !slices.Contains(tags, to) {
		if mine[0].Chart != nil {
			return nil, fmt.Errorf("chart %s version %s is not in its repository: helm could not install it", image, to)
		}
		return nil, fmt.Errorf("%s:%s is not in the registry: nodes could not pull it", image, to)
	}
	var digest string
	if slices.ContainsFunc(mine, func(r scan.Ref) bool { return r.Digest != "" }) {
		if digest, err = reg.Digest(ctx, repo.Tag(to)); err != nil {
			return nil, &LookupError{fmt.Errorf("digest of %s:%s: %w", image, to, err)}
		}
	}
	var u *plan.Update
	for _, r := range mine {
		c := plan.Change{Ref: r}
		if r.Tag != to {
			c.Tag = to
		}
		if r.Digest != "" && r.Digest != digest {
			c.Digest = digest
		}
		if c.Tag == "" && c.Digest == "" {
			continue
		}
		if u == nil {
			u = &plan.Update{Image: image, Repo: repo, From: r.Tag, To: to, Type: plan.TypeRollback, Kind: plan.KindRollback, Grounds: []string{why}}
			if c := r.Chart; c != nil {
				u.Chart = &plan.Chart{Repository: c.Repository, Name: c.Name}
			}
		}
		if c.Digest != "" {
			u.Digest = digest
		}
		u.Changes = append(u.Changes, c)
		u.Locations = append(u.Locations, r.Location)
	}
	if u != nil {
		plan.WriteChartTags(u)
	}
	return u, nil
}

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
	if refs[0].Chart != nil || refs[0].Git != nil {
		st = chartFiles(refs, func(f string) bool { return in[f] })
	}
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
