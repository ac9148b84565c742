package job

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/imagebot/imagebot/internal/scan"
)

// Push hooks (DESIGN.md "Own images and push hooks"): a notification is a
// hint. serve asks References which checkouts name the image, CheckPush
// whether the registry really serves what the notification claims, and
// then runs Run with Options.Images on those checkouts alone.

// ErrNotServed: the registry does not list the tag, or serves another
// digest under it, than a notification claimed.
var ErrNotServed = errors.New("not served by the registry")

// only keeps the references to e.images, when set: the scan's skipped
// references and problems speak of other images or of files a hook's run
// does not answer for.
func (e *engine) only(res scan.Result) scan.Result {
	if len(e.images) == 0 {
		return res
	}
	out := scan.Result{Files: res.Files}
	for _, r := range res.Refs {
		if slices.Contains(e.images, r.Image) {
			out.Refs = append(out.Refs, r)
		}
	}
	return out
}

// References reports whether the checkout o.Repo references image (a
// normalized name), by its working tree: no request.
func References(ctx context.Context, o Options, image string) (bool, error) {
	e, err := newEngine(&o)
	if err != nil {
		return false, err
	}
	res, err := e.scan(ctx)
	if err != nil {
		return false, fmt.Errorf("scan %s: %w", e.repo, err)
	}
	return slices.ContainsFunc(res.Refs, func(r scan.Ref) bool { return r.Image == image }), nil
}

// CheckPush asks the registry, as o.Repo's config reaches it, whether it
// lists tag for image and, when digest is given, serves that digest under
// it: one listing and one manifest HEAD, both of which the run that
// follows reuses through o.Pool. A claim the registry does not back is
// ErrNotServed.
func CheckPush(ctx context.Context, o Options, image, tag, digest string) error {
	e, err := newEngine(&o)
	if err != nil {
		return err
	}
	repo, err := name.NewRepository(image)
	if err != nil {
		return fmt.Errorf("image %q: %w", image, err)
	}
	// The notification says the repository changed: a listing --cache
	// holds as fresh predates it. The run that follows shares the answer.
	e.reg.Revalidate(repo)
	tags, err := e.reg.Tags(ctx, repo)
	if err != nil {
		return fmt.Errorf("list the tags of %s: %w", image, err)
	}
	if !slices.Contains(tags, tag) {
		return fmt.Errorf("%s:%s: the tag is %w (not in its listing)", image, tag, ErrNotServed)
	}
	if digest == "" {
		return nil
	}
	got, err := e.reg.Digest(ctx, repo.Tag(tag))
	if err != nil {
		return fmt.Errorf("digest of %s:%s: %w", image, tag, err)
	}
	if got != digest {
		return fmt.Errorf("%s:%s: the notified digest is %w (the tag is %s now)", image, tag, ErrNotServed, got)
	}
	return nil
}
