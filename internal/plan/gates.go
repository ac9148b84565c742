package plan

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/imagebot/imagebot/internal/gate"
	"github.com/imagebot/imagebot/internal/imagefacts"
	"github.com/imagebot/imagebot/internal/scan"
	"github.com/imagebot/imagebot/internal/timefmt"
)

// Inspector is what the gates and the dangling check need beyond tags and
// digests: an image's facts by tag or digest, a signature check, and
// whether a digest still exists. internal/gate/inspect implements it over
// the registry client. Not-found answers wrap gate.ErrNotFound.
type Inspector interface {
	Facts(ctx context.Context, ref name.Reference, need imagefacts.Need) (imagefacts.Facts, error)
	Verify(ctx context.Context, ref name.Digest, sig gate.Signature) (gate.Signer, error)
	Exists(ctx context.Context, ref name.Digest) (bool, error)
}

// maxInspected bounds the candidates the gates inspect for one reference:
// a registry of hundreds of young, unsigned tags costs five inspections,
// not hundreds.
const maxInspected = 5

// gating runs the gates for the references of one image:tag. It reads
// the current image's platforms once, and only for platforms: keep.
type gating struct {
	d       *decider
	current string // the tag
	pinned  string // a digest the references pin, "" if none

	loaded  bool
	want    []string
	unknown string
}

// pick is what the gates made of the candidates.
type pick struct {
	tag  string // "" when none passed
	ev   *gate.Evidence
	held []string // "1.27.4: 5h old, minAge 3d", best first
}

// choose walks the candidates best first and returns the first that
// passes every gate, with what held back the ones before it. An error is
// a registry that could not be read: no candidate is judged on it.
func (g *gating) choose(cands []string) (pick, error) {
	var p pick
	for i, c := range cands {
		if i == maxInspected {
			p.held = append(p.held, fmt.Sprintf("%s not inspected (at most %d per reference)", count(len(cands)-i, "more candidate"), maxInspected))
			break
		}
		ev, why, err := g.inspect(g.d.repo.Tag(c), false)
		if err != nil {
			return pick{}, fmt.Errorf("%s: %w", c, err)
		}
		if why == "" {
			p.tag, p.ev = c, ev
			return p, nil
		}
		p.held = append(p.held, c+": "+why)
	}
	return p, nil
}

// inspect runs every gate of the policy on ref (a candidate tag, or the
// new digest of the current tag when digestUpdate). It returns the
// evidence of a candidate that passes, or why it is held. The cheap gates
// come first, so a held candidate costs no signature check.
func (g *gating) inspect(ref name.Reference, digestUpdate bool) (*gate.Evidence, string, error) {
	d, spec := g.d, g.d.spec
	f, err := g.facts(ref, spec.Need(digestUpdate))
	if errors.Is(err, gate.ErrNotFound) {
		return nil, "listed, but its manifest is gone from the registry", nil
	}
	if err != nil {
		return nil, "", err
	}
	ev := &gate.Evidence{Digest: f.Digest}
	first, counts := d.seen.firstSeen(sightingKey(d.repo, ref, f.Digest))
	held := func(name, why string, passes time.Time) (*gate.Evidence, string, error) {
		d.seen.hold(Held{Image: d.img, Tag: tagOf(ref), Digest: f.Digest, Gate: name, Why: why, Seen: first, Passes: passes})
		return nil, why, nil
	}
	if spec.Platforms.On() {
		if err := g.wanted(); err != nil {
			return nil, "", err
		}
		if g.unknown == "" {
			if why := gate.CheckPlatforms(f.Platforms, g.want, spec.Platforms.Keep); why != "" {
				return held("platforms", why, time.Time{})
			}
		}
		ev.Platforms = &gate.PlatformsEvidence{Have: f.Platforms, Want: g.want, Keep: spec.Platforms.Keep, Unknown: g.unknown}
	}
	if spec.MinAge > 0 {
		since := time.Time{}
		if counts {
			since = first
		}
		if why := gate.MinAgeSeen(f, since, spec.MinAge, d.now); why != "" {
			return held("minAge", why, ageBase(f, since).Add(spec.MinAge))
		}
		ev.Age = &gate.AgeEvidence{Created: f.Created.UTC(), From: f.CreatedFrom, Limit: timefmt.Duration(spec.MinAge)}
		if !first.IsZero() {
			fs := first.UTC()
			ev.Age.FirstSeen = &fs
		}
	}
	if digestUpdate && spec.DigestSettle > 0 {
		if why := gate.Settle(f, spec.DigestSettle, d.now); why != "" {
			return held("digestSettle", why, f.Newest.Add(spec.DigestSettle))
		}
		ev.Settled = &gate.AgeEvidence{Created: f.Newest.UTC(), Limit: timefmt.Duration(spec.DigestSettle)}
	}
	if spec.Signature != nil {
		signer, verr := d.insp.Verify(d.ctx, d.repo.Digest(f.Digest), *spec.Signature)
		why, err := gate.CheckSignature(verr)
		if err != nil {
			return nil, "", err
		}
		if why != "" {
			return held("signature", why, time.Time{})
		}
		ev.Signature = &signer
	}
	return ev, "", nil
}

// facts reads what need asks of ref. A signature alone needs only the
// digest: a HEAD, which registries do not count as a pull.
func (g *gating) facts(ref name.Reference, need imagefacts.Need) (imagefacts.Facts, error) {
	d := g.d
	if need != 0 {
		return d.insp.Facts(d.ctx, ref, need)
	}
	tag, ok := ref.(name.Tag)
	if !ok {
		return imagefacts.Facts{Digest: ref.Identifier()}, nil
	}
	digest, err := d.reg.Digest(d.ctx, tag)
	return imagefacts.Facts{Digest: digest}, err
}

// wanted sets the platforms a candidate must have: the policy's list, or
// for keep the current image's (the pinned digest's when the references
// pin one, else the tag's). A current image that is gone leaves keep
// nothing to compare.
func (g *gating) wanted() error {
	if g.loaded {
		return nil
	}
	g.loaded = true
	spec := g.d.spec.Platforms
	if !spec.Keep {
		g.want = spec.List
		return nil
	}
	f, err := imagefacts.Facts{}, gate.ErrNotFound
	if g.pinned != "" {
		f, err = g.d.insp.Facts(g.d.ctx, g.d.repo.Digest(g.pinned), imagefacts.NeedPlatforms)
	}
	if errors.Is(err, gate.ErrNotFound) { // no pin, or the pinned image is gone
		f, err = g.d.insp.Facts(g.d.ctx, g.d.repo.Tag(g.current), imagefacts.NeedPlatforms)
	}
	switch {
	case errors.Is(err, gate.ErrNotFound):
		g.unknown = fmt.Sprintf("the current image (%s) is gone from the registry: nothing to keep", g.current)
		return nil
	case err != nil:
		g.loaded = false
		return fmt.Errorf("platforms of the current image %s: %w", g.current, err)
	}
	g.want = f.Platforms
	return nil
}

// heldDetail says which gate held back which candidate.
func heldDetail(held []string) string { return strings.Join(held, "; ") }

// pinnedDigest is the digest the first pinned reference holds.
func pinnedDigest(refs []scan.Ref) string {
	for _, r := range refs {
		if r.Digest != "" {
			return r.Digest
		}
	}
	return ""
}

// ageBase is what minAge measures from: created, or first sight when later.
func ageBase(f imagefacts.Facts, firstSeen time.Time) time.Time {
	if firstSeen.After(f.Created) {
		return firstSeen
	}
	return f.Created
}

// tagOf is the tag ref names, or "" for a digest.
func tagOf(ref name.Reference) string {
	if t, ok := ref.(name.Tag); ok {
		return t.TagStr()
	}
	return ""
}
