package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/imagename"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/rollout"
	"github.com/imagebot/imagebot/internal/scan"
)

// rollbackOptions are the flags and arguments of `rollback IMAGE [DIR]`.
type rollbackOptions struct {
	commonOptions
	Image  string
	To     string
	DryRun bool
}

func newRollbackCmd(f *factory, runF func(context.Context, *rollbackOptions) error) *cobra.Command {
	o := &rollbackOptions{commonOptions: newCommonOptions(f)}
	cmd := &cobra.Command{
		Use:   "rollback IMAGE [DIR]",
		Short: "One pull request moving an image back to an earlier tag",
		Long: `Rollback opens one pull request that moves every reference of IMAGE back to
TAG (--to), or, without --to, to the tag the references had before the
commit that brought the current one on the default branch. The update type
is rollback. Once the pull request is merged, the version rolled back from
counts as declined: run does not propose it again, and proposes a newer one
as usual.

It needs what run needs: GITHUB_TOKEN (or a GitHub App), and DIR a clone of
the repository. --dry-run prints the pull request instead.`,
		Example: `  # Back to the tag before the current one
  GITHUB_TOKEN=ghp_... imagebot rollback nginx

  # Back to a tag of your choosing, previewed first
  imagebot rollback ghcr.io/acme/api --to v1.8.2 --dry-run ./gitops`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("rollback needs the IMAGE to roll back, such as nginx or ghcr.io/acme/api")
			}
			o.Image = args[0]
			return repoArg(&o.Repo)(cmd, args[1:])
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runRollback(cmd.Context(), o)
		},
	}
	o.bind(cmd.Flags())
	cmd.Flags().StringVar(&o.To, "to", "", "the `TAG` to go back to (default: the tag before the current one on the default branch)")
	cmd.Flags().BoolVarP(&o.DryRun, "dry-run", "n", false, "print the pull request it would open; write nothing")
	return cmd
}

// runRollback opens one pull request moving every reference of the image
// back: to --to, or to the tag it had before the current one.
func runRollback(ctx context.Context, o *rollbackOptions) error {
	image, err := rollbackImage(o.Image)
	if err != nil {
		return &usageError{err}
	}
	conn, ok, err := githubConnection(o.commonOptions, o.logger())
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("GITHUB_TOKEN is not set: rollback reads the default branch's history and opens a pull request, as run does (a GitHub App's IMAGEBOT_APP_ID and IMAGEBOT_APP_PRIVATE_KEY work too)")
	}
	sess, e, err := tipEngine(ctx, o.commonOptions, conn)
	if err != nil {
		return err
	}
	res, err := e.scan(ctx)
	if err != nil {
		return err
	}
	u, err := rollbackUpdate(ctx, e, sess, image, o.To, res.Refs)
	if err != nil {
		return err
	}
	if u == nil {
		fmt.Fprintf(o.IO.Out, "%s is at %s already: nothing to roll back\n", image, o.To)
		return nil
	}
	p := &plan.Plan{Updates: []plan.Update{*u}}
	ro := pullRequestOptions(e, o.DryRun, o.IO.Out)
	ro.Partial = true
	out, err := sess.Run(ctx, p, ro)
	if err != nil {
		return &partialError{explainGitHub(err, conn)}
	}
	printRun(o.IO.Out, p, out, o.DryRun)
	if len(out.Failed) > 0 || len(out.RateLimited) > 0 {
		return errPartial
	}
	return nil
}

// rollbackImage normalizes IMAGE, which names a repository, not a tag.
func rollbackImage(arg string) (string, error) {
	if strings.ContainsAny(arg, "@") || strings.Contains(arg[strings.LastIndex(arg, "/")+1:], ":") {
		return "", fmt.Errorf("IMAGE %q names a tag or digest: name the image alone, and the tag with --to", arg)
	}
	img, err := imagename.Normalize(arg)
	if err != nil {
		return "", fmt.Errorf("IMAGE %q: %w", arg, err)
	}
	return img, nil
}

// rollbackUpdate is the update moving every reference of image to the
// tag to go back to, checked against the registry; nil when every
// reference is there already.
func rollbackUpdate(ctx context.Context, e *engine, sess *gitops.Session, image, to string, all []scan.Ref) (*plan.Update, error) {
	var refs []scan.Ref
	for _, r := range all {
		if r.Image == image && r.Tag != "" {
			refs = append(refs, r)
		}
	}
	if len(refs) == 0 {
		return nil, fmt.Errorf("%s has no tagged reference on %s", image, tipName(sess))
	}
	why := fmt.Sprintf("Requested with `imagebot rollback --to %s`.", to)
	if to == "" {
		tag, brought, err := rollout.Previous(ctx, sess, refs)
		if err != nil {
			return nil, err
		}
		to = tag
		why = fmt.Sprintf("`%s` is the tag %s had before commit `%s` (%s) brought `%s`.",
			tag, image, brought.Short(), brought.Time.UTC().Format("2006-01-02 15:04 UTC"), refs[0].Tag)
	}
	// The references' name, parsed by the scan, is what the registry is
	// asked with.
	repo := refs[0].Repo
	tags, err := e.reg.Tags(ctx, repo)
	if err != nil {
		return nil, &partialError{fmt.Errorf("look up %s: %w", image, err)}
	}
	if !slices.Contains(tags, to) {
		return nil, fmt.Errorf("%s:%s is not in the registry: nodes could not pull it", image, to)
	}
	var digest string
	if slices.ContainsFunc(refs, func(r scan.Ref) bool { return r.Digest != "" }) {
		if digest, err = e.reg.Digest(ctx, repo.Tag(to)); err != nil {
			return nil, &partialError{fmt.Errorf("digest of %s:%s: %w", image, to, err)}
		}
	}
	var u *plan.Update
	for _, r := range refs {
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
		}
		if c.Digest != "" {
			u.Digest = digest
		}
		u.Changes = append(u.Changes, c)
		u.Locations = append(u.Locations, r.Location)
	}
	return u, nil
}
