package plan

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/imagebot/imagebot/internal/policy"
	"github.com/imagebot/imagebot/internal/scan"
)

// decideImage decides every reference to one image. Lookup failures become
// problems marked Failed, so one bad image never stops the others.
func decideImage(ctx context.Context, img string, refs []scan.Ref, opts Options) ([]Update, []Problem) {
	pol, err := opts.Policy(img)
	if err != nil {
		return nil, []Problem{problem(refs[0], false, "policy for %s: %v", img, err)}
	}
	if pol.Skip() {
		return nil, nil
	}
	byTag := map[string][]scan.Ref{}
	var tags []string
	for _, r := range refs {
		if r.Tag == "" && (r.Digest != "" || pol.Pin() != "tag") {
			continue // untagged: Kubernetes pulls latest; only `pin: tag` touches it
		}
		if _, ok := byTag[r.Tag]; !ok {
			tags = append(tags, r.Tag)
		}
		byTag[r.Tag] = append(byTag[r.Tag], r)
	}
	if len(tags) == 0 {
		return nil, nil
	}
	listing, err := opts.Registry.Tags(ctx, img)
	if err != nil {
		return nil, []Problem{problem(refs[0], true, "look up %s (%s): %v", img, count(len(refs), "reference"), err)}
	}
	slices.Sort(tags)
	d := decider{ctx: ctx, img: img, pol: pol, listing: listing, reg: opts.Registry}
	var ups []Update
	var probs []Problem
	for _, tag := range tags {
		up, prob := d.decide(tag, byTag[tag])
		if prob != nil {
			probs = append(probs, *prob)
		}
		if up == nil {
			continue
		}
		ups = merge(ups, *up)
	}
	return ups, probs
}

// merge adds up to ups, joining it with an update of the same move: an
// untagged reference and one tagged `latest` are the same update.
func merge(ups []Update, up Update) []Update {
	for i := range ups {
		if ups[i].From == up.From && ups[i].To == up.To {
			ups[i].Changes = append(ups[i].Changes, up.Changes...)
			ups[i].Locations = append(ups[i].Locations, up.Locations...)
			return ups
		}
	}
	return append(ups, up)
}

type decider struct {
	ctx     context.Context
	img     string
	pol     *policy.Policy
	listing []string
	reg     Registry
}

// decide picks the target of one image:tag and the changes to its references.
func (d decider) decide(from string, refs []scan.Ref) (*Update, *Problem) {
	current := from
	if current == "" {
		current = "latest"
	}
	to, typ := current, ""
	pinned := d.pol.Pin() == "digest"
	for _, r := range refs {
		pinned = pinned || r.Digest != ""
	}
	mutable := policy.Mutable(current, d.listing)
	switch {
	case mutable && d.pol.Pin() == "tag":
		target, err := d.pin(current)
		if err != nil {
			p := problem(refs[0], true, "pin %s:%s: %v", d.img, current, err)
			return nil, &p
		}
		if target == "" {
			p := problem(refs[0], false, "pin %s:%s: no versioned tag has the same digest", d.img, current)
			return nil, &p
		}
		to, typ = target, "pin"
	case mutable && !pinned:
		return nil, nil // a floating tag is left alone unless asked to pin it
	case mutable:
		// nginx:stable@sha256:... keeps its tag; only the digest follows it.
	default:
		latest, ok, err := d.pol.Latest(current, d.listing)
		if err != nil {
			p := problem(refs[0], false, "%s: %v", d.img, err)
			return nil, &p
		}
		if ok {
			to, typ = latest, policy.Type(current, latest)
		}
	}

	// A digest is looked up only where one is written or a policy pins it.
	var digest string
	if pinned {
		var err error
		if digest, err = d.reg.Digest(d.ctx, d.img, to); err != nil {
			p := problem(refs[0], true, "digest of %s:%s: %v", d.img, to, err)
			return nil, &p
		}
	}
	up := &Update{Image: d.img, From: from, To: to, Type: typ}
	if from == "" {
		up.From = current
	}
	for _, r := range refs {
		c := Change{Ref: r}
		if to != from {
			c.Tag = to
		}
		if digest != "" && (r.Digest != "" || d.pol.Pin() == "digest") && r.Digest != digest {
			c.Digest = digest
		}
		if c.Tag == "" && c.Digest == "" {
			continue
		}
		up.Changes = append(up.Changes, c)
		up.Locations = append(up.Locations, r.Location)
	}
	if len(up.Changes) == 0 {
		return nil, nil
	}
	if to == current {
		up.Type = "digest"
	}
	up.Digest = digest
	return up, nil
}

// pin finds the versioned tag that today has the same digest as a floating
// one, trying the best candidates first and giving up after maxPinTries.
func (d decider) pin(tag string) (string, error) {
	want, err := d.reg.Digest(d.ctx, d.img, tag)
	if err != nil {
		return "", err
	}
	for i, cand := range d.pol.PinCandidates(d.listing) {
		if i == maxPinTries {
			break
		}
		got, err := d.reg.Digest(d.ctx, d.img, cand)
		if err != nil {
			return "", err
		}
		if got == want {
			return cand, nil
		}
	}
	return "", nil
}

func problem(r scan.Ref, failed bool, format string, args ...any) Problem {
	return Problem{File: r.File, Line: r.Line, Message: strings.TrimSpace(fmt.Sprintf(format, args...)), Failed: failed, Image: r.Image}
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
