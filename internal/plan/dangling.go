package plan

import (
	"fmt"

	"github.com/imagebot/imagebot/internal/imagename"
	"github.com/imagebot/imagebot/internal/scan"
)

// KindDangling marks a reference whose image the registry no longer
// serves: a tag gone from its listing, or a pinned digest it no longer has.
// Nodes without the image cached cannot start the workload (seed 001:
// released images must stay pullable), so it fails the run (exit 2).
const KindDangling = "dangling"

// danglingAdvice is what a dangling reference means and what to do.
const danglingAdvice = "nodes without the image cached can no longer start this workload: restore the tag or move to another"

// dangling checks the references of one image:tag. A tag is checked
// against the listing already read (no request). A pinned digest is
// checked by HEAD, only where this plan neither saw the tag resolve to it
// nor replaces it: a plan of plain tags, or of pinned references whose
// tags still point at their digests, costs nothing more. resolved is the
// digest the tag resolved to in this plan ("" if not looked up); moved
// maps a reference to the tag and digest the plan writes into it.
func (d decider) dangling(tag, resolved string, refs []scan.Ref, moved map[scan.Location]Change) []Problem {
	var out []Problem
	listed := tag == "" || d.idx.Listed(tag) // no tag to lose; digest-only references read no listing
	for _, r := range refs {
		c, changed := moved[r.Location]
		digestGone := false
		if r.Digest != "" && c.Digest == "" && r.Digest != resolved && d.insp != nil {
			ok, err := d.insp.Exists(d.ctx, d.repo.Digest(r.Digest))
			if err != nil {
				out = append(out, problem(r, true, "check that %s@%s still exists: %v", d.img, r.Digest, err))
				continue
			}
			digestGone = !ok
		}
		if listed && !digestGone {
			continue
		}
		var msg string
		switch {
		case digestGone:
			msg = fmt.Sprintf("%s@%s is gone from the registry (no manifest with that digest): %s", refString(d.img, r.Tag), imagename.ShortDigest(r.Digest), danglingAdvice)
		case r.Digest != "":
			msg = fmt.Sprintf("%s is gone from the registry's tag list; pulling by the pinned digest works only while the registry keeps it: restore the tag or move to another", refString(d.img, r.Tag))
		default:
			msg = fmt.Sprintf("%s is gone from the registry (not in its tag list): %s", refString(d.img, r.Tag), danglingAdvice)
		}
		if changed && c.Tag != "" {
			msg += fmt.Sprintf(" (this plan moves it to %s)", c.Tag)
		}
		p := problem(r, true, "%s", msg)
		p.Kind = KindDangling
		out = append(out, p)
	}
	return out
}

// danglingDigests checks references that name a digest and no tag: the
// digest is all there is to pull.
func (d decider) danglingDigests(refs []scan.Ref) []Problem {
	if d.insp == nil {
		return nil
	}
	return d.dangling("", "", refs, nil)
}

func refString(img, tag string) string {
	if tag == "" {
		return img
	}
	return img + ":" + tag
}
