package job

import (
	"cmp"
	"context"
	"fmt"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/imagebot/imagebot/internal/plan"
)

// digestConfirmer is the registry client's Confirm (internal/registry).
type digestConfirmer interface {
	Confirm(ctx context.Context, ref name.Tag, digest string) error
}

// confirmDigests checks each digest the plan would write that the
// registry client answered from --cache against the registry (one HEAD
// per such digest; none without a cache): a cache is a hint, and a
// listing edited on disk must not make apply or run pin a digest the
// registry never served for the tag. An update whose digest is not
// confirmed is not proposed; it becomes a failed lookup (exit 2), and the
// next run, with the registry's digest cached, proposes it.
func confirmDigests(ctx context.Context, reg digestConfirmer, p *plan.Plan) {
	kept := p.Updates[:0]
	for _, u := range p.Updates {
		if err := confirmUpdate(ctx, reg, u); err != nil {
			at := u.Locations[0]
			p.Problems = append(p.Problems, plan.Problem{File: at.File, Line: at.Line, Failed: true, Image: u.Image,
				Message: fmt.Sprintf("%s %s -> %s not proposed: %v", u.Image, u.From, u.To, err)})
			continue
		}
		kept = append(kept, u)
	}
	p.Updates = kept
	p.Sort()
}

// confirmUpdate confirms every digest u writes, each once.
func confirmUpdate(ctx context.Context, reg digestConfirmer, u plan.Update) error {
	done := map[string]bool{}
	for _, c := range u.Changes {
		if c.Digest == "" {
			continue
		}
		tag := cmp.Or(c.Tag, c.Ref.Tag, u.To)
		if tag == "" || done[tag+"@"+c.Digest] {
			continue
		}
		done[tag+"@"+c.Digest] = true
		if err := reg.Confirm(ctx, u.Repo.Tag(tag), c.Digest); err != nil {
			return err
		}
	}
	return nil
}
