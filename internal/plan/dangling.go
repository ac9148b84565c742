package plan

import (
	"cmp"
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
// checked by HEAD (once per digest: the client remembers), only where this
// plan did not see the tag resolve to it: a plan of plain tags, or of
// pinned references whose tags still point at their digests, costs
// nothing more. A digest the plan replaces is checked too: a tag pushed
// again while its old digest was deleted leaves the workload unable to
// start until the update is merged, which a digest refresh must not hide.
// resolved is the digest the tag resolved to in this plan ("" if not
// looked up); moved maps a reference to the tag and digest the plan
// writes into it.
func (d decider) dangling(tag, resolved string, refs []scan.Ref, moved map[scan.Location]Change) []Problem {
	var out []Problem
	listed := tag == "" || d.idx.Listed(tag) // no tag to lose; digest-only references read no listing
	for _, r := range refs {
		c, changed := moved[r.Location]
		digestGone := false
		if r.Digest != "" && r.Digest != resolved && d.insp != nil {
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
		case r.Chart != nil && !digestGone:
			msg = fmt.Sprintf("chart %s version %s is gone from its repository: helm can no longer install it; restore the version or move to another", d.img, r.Tag)
		case digestGone:
			msg = fmt.Sprintf("%s@%s is gone from the registry (no manifest with that digest): %s", refString(d.img, r.Tag), imagename.ShortDigest(r.Digest), danglingAdvice)
		case r.Digest != "":
			msg = fmt.Sprintf("%s is gone from the registry's tag list; pulling by the pinned digest works only while the registry keeps it: restore the tag or move to another", refString(d.img, r.Tag))
		default:
			msg = fmt.Sprintf("%s is gone from the registry (not in its tag list): %s", refString(d.img, r.Tag), danglingAdvice)
		}
		if to := movedTo(r, c); changed && to != "" {
			msg += fmt.Sprintf(" (this plan moves it to %s)", to)
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

// movedTo spells what a change writes into r: the new tag, and the new
// digest when there is one ("1.1.0", "1.0.0@640ee381943c"); "" when the
// change writes nothing.
func movedTo(r scan.Ref, c Change) string {
	switch {
	case c.Digest != "":
		return cmp.Or(c.Tag, r.Tag) + "@" + imagename.ShortDigest(c.Digest)
	case c.Tag != "":
		return c.Tag
	}
	return ""
}

func refString(img, tag string) string {
	if tag == "" {
		return img
	}
	return img + ":" + tag
}
