package plan

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/imagebot/imagebot/internal/imagefacts"
	"github.com/imagebot/imagebot/internal/policy"
	"golang.org/x/sync/errgroup"
)

// Newest build for tags without a version (DESIGN.md "Own images and push
// hooks"): a policy's `order` ranks the tags it selects by the image's
// build time (created) or by when imagebot first saw the tag (firstSeen),
// then by build time among tags first seen in one run. What each costs:
//
//	firstSeen    nothing: the first sightings are the dashboard's record;
//	             build times only to break a tie among tags first seen
//	             together (the first run, an image newly watched)
//	created      one manifest and one config per tag never dated before
//	             (an index: its first platform's manifest too); kept by
//	             tag in --cache (BuildTimes), so a rerun with no new tag
//	             costs the listing alone
//
// A run dates at most maxDated tags of an image: the current tag first,
// then the others from the end of the listing back, since registries
// that keep push order (GHCR, Harbor, ECR) list the newest last and the
// others (sorted by name) say nothing either way. Tags past the bound
// are no candidates in that run; the plan says how many (Order.Undated),
// and with --cache the next runs date them in turn, so a repository of
// 700 old tags is ordered completely after 14 runs, each bounded.

// maxDated bounds the tags whose build time one run reads per image.
const maxDated = 50

// maxTagSightings bounds the tags of one image whose first sighting the
// dashboard keeps: more than that would crowd the record's digests out.
// Beyond it, firstSeen orders by created, and says so.
const maxTagSightings = 200

// BuildTimes keeps when each tag's image was built, by repository, from
// run to run (internal/registry/cache's Builds): a build tag's image is
// read once.
type BuildTimes interface {
	Builds(repo name.Repository) map[string]time.Time
	PutBuilds(repo name.Repository, created map[string]time.Time)
}

// Order says how an update's tag was chosen among builds, and what that
// cost: the JSON plan and the PR body show it.
type Order struct {
	By string `json:"by"` // created or firstSeen
	// Requests are the manifest and config requests spent reading build
	// times in this run; 0 when every one was known.
	Requests int `json:"requests"`
	// Undated are the selected tags whose build time is still unknown
	// (past maxDated): no candidates in this run.
	Undated int `json:"undated,omitempty"`
}

// ReasonBuildUnknown: the current build's place in the order is unknown
// (gone from the listing, or no build time), so nothing is proposed.
const ReasonBuildUnknown = "build-unknown"

// build is one selected tag with what orders it.
type build struct {
	tag     string
	seen    time.Time // first sighting; zero for order created
	created time.Time // zero while undated or unknown
	dated   bool      // created is a known build time
	read    bool      // the image was read (or its time kept): dated or not, no more to learn
}

// later reports whether a is a later build than b: first sighting first,
// then build time. An undated build is never later than a dated one.
func (a build) later(b build) bool {
	if c := a.seen.Compare(b.seen); c != 0 {
		return c > 0
	}
	return a.dated && b.dated && a.created.After(b.created)
}

// orderBuilds decides current under an order policy: the candidates,
// newest first, are the builds later than current.
func (d decider) orderBuilds(current string) (policy.Decision, *Order, error) {
	sel, err := d.idx.Builds(current)
	if err != nil {
		return policy.Decision{}, nil, err
	}
	by := d.pol.Order()
	o := &Order{By: by}
	if !d.idx.Listed(current) {
		return policy.Decision{Reason: ReasonBuildUnknown, Detail: current + " is not in the registry's listing: nothing to order against, so nothing is proposed"}, o, nil
	}
	bs := make([]build, len(sel))
	for i, t := range sel {
		bs[i] = build{tag: t}
	}
	if by == policy.OrderFirstSeen && d.seen != nil && len(bs) <= maxTagSightings {
		for i := range bs {
			first, counts := d.seen.firstSeen(tagSightingKey(d.repo, bs[i].tag))
			if counts {
				// Seen arriving after the first recorded run; the
				// others were there before and tie, ordered by created.
				bs[i].seen = first.Truncate(time.Second)
			}
		}
	} else if by == policy.OrderFirstSeen {
		o.By = policy.OrderCreated
	}
	cur := slices.IndexFunc(bs, func(b build) bool { return b.tag == current })
	// Only builds tied with or above current need a build time, and of
	// those the ones sharing the latest sighting.
	need := toDate(bs, cur)
	reqs := &imagefacts.Requests{}
	if err := d.date(imagefacts.WithRequests(d.ctx, reqs), bs, need, cur); err != nil {
		return policy.Decision{}, o, err
	}
	o.Requests = reqs.N()
	for _, i := range need {
		if !bs[i].read {
			o.Undated++
		}
	}
	c := bs[cur]
	if slices.Contains(need, cur) && !c.dated {
		return policy.Decision{Reason: ReasonBuildUnknown, Detail: current + "'s build time is unknown (its image states none): nothing is proposed"}, o, nil
	}
	var cands []build
	for _, b := range bs {
		if b.tag != current && b.later(c) {
			cands = append(cands, b)
		}
	}
	slices.SortFunc(cands, func(a, b build) int {
		if a.later(b) {
			return -1
		}
		if b.later(a) {
			return 1
		}
		return cmp.Compare(a.tag, b.tag)
	})
	dec := policy.Decision{}
	for _, b := range cands {
		dec.Candidates = append(dec.Candidates, b.tag)
	}
	if len(cands) == 0 {
		dec.Reason = policy.ReasonUpToDate
	}
	if o.Undated > 0 {
		dec.Detail = fmt.Sprintf("%s not dated yet (at most %d a run)", count(o.Undated, "build"), maxDated)
	}
	return dec, o, nil
}

// toDate is the indexes of the builds whose build time the order needs:
// the builds sharing the latest sighting, when more than one does (a tie
// the build time breaks); with current among them when it shares it. A
// single build sighted after current needs none: the sighting decides.
func toDate(bs []build, cur int) []int {
	latest := bs[cur].seen
	for _, b := range bs {
		if b.seen.After(latest) {
			latest = b.seen
		}
	}
	var need []int
	for i, b := range bs {
		if b.seen.Equal(latest) {
			need = append(need, i)
		}
	}
	if len(need) == 1 && need[0] != cur {
		return nil
	}
	return need
}

// date reads the build time of the builds at need: from the record when
// kept, else from the registry, current first, then from the end of the
// listing back, at most maxDated.
func (d decider) date(ctx context.Context, bs []build, need []int, cur int) error {
	if d.insp == nil {
		return fmt.Errorf("order %s needs to read images, and this plan reads none", d.pol.Order())
	}
	var kept map[string]time.Time
	if d.builds != nil {
		kept = d.builds.Builds(d.repo)
	}
	var todo []int
	for _, i := range need {
		if at, ok := kept[bs[i].tag]; ok {
			bs[i].created, bs[i].dated, bs[i].read = at, imagefacts.Known(at), true
			continue
		}
		todo = append(todo, i)
	}
	// Current first (its place decides everything), then listing order
	// from the end.
	slices.SortStableFunc(todo, func(a, b int) int {
		return cmp.Compare(b, a)
	})
	if i := slices.Index(todo, cur); i > 0 {
		todo = slices.Insert(slices.Delete(todo, i, i+1), 0, cur)
	}
	if len(todo) > maxDated {
		todo = todo[:maxDated]
	}
	fresh := map[string]time.Time{}
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for _, i := range todo {
		g.Go(func() error {
			f, err := d.insp.Facts(gctx, d.repo.Tag(bs[i].tag), imagefacts.NeedCreated)
			if err != nil {
				return fmt.Errorf("build time of %s:%s: %w", d.img, bs[i].tag, err)
			}
			mu.Lock()
			defer mu.Unlock()
			bs[i].created, bs[i].dated, bs[i].read = f.Created, imagefacts.Known(f.Created), true
			// An unknown time is kept too: asking again would say the same.
			fresh[bs[i].tag] = f.Created
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	if d.builds != nil && len(fresh) > 0 {
		d.builds.PutBuilds(d.repo, fresh)
	}
	return nil
}

// tagSightingKey is what a tag's first sighting is recorded under, in the
// form of a digest as the dashboard's record keeps them.
func tagSightingKey(repo name.Repository, tag string) string {
	sum := sha256.Sum256([]byte("imagebot tag sighting\x00" + repo.Name() + "\x00" + tag))
	return "sha256:" + hex.EncodeToString(sum[:])
}
