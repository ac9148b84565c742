package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/imagebot/imagebot/internal/gitops"
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

func rollbackCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o rollbackOptions
	fs := flag.NewFlagSet("rollback", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o.bind(fs)
	fs.StringVar(&o.To, "to", "", "`tag` to go back to (default: the tag before the current one on the default branch)")
	fs.BoolVar(&o.DryRun, "dry-run", false, "print the pull request it would open, write nothing")
	// IMAGE and DIR may come before or after the flags.
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return parseStatus(err)
		}
		if fs.NArg() == 0 {
			break
		}
		pos, args = append(pos, fs.Arg(0)), fs.Args()[1:]
	}
	switch len(pos) {
	case 2:
		o.Repo = pos[1]
		fallthrough
	case 1:
		o.Image = pos[0]
	default:
		fmt.Fprintln(stderr, "usage: imagebot rollback IMAGE [--to TAG] [DIR]")
		return exitUsage
	}
	return runRollback(ctx, o, stdout, stderr)
}

// runRollback opens one pull request moving every reference of the image
// back: to --to, or to the tag it had before the current one.
func runRollback(ctx context.Context, o rollbackOptions, stdout, stderr io.Writer) int {
	fail := func(code int, err error) int {
		fmt.Fprintf(stderr, "imagebot rollback: %v\n", err)
		return code
	}
	image, err := rollbackImage(o.Image)
	if err != nil {
		return fail(exitUsage, err)
	}
	log, err := o.logger(stderr)
	if err != nil {
		return fail(exitUsage, err)
	}
	token, app, err := githubAuth(os.Getenv)
	if err != nil {
		return fail(exitUsage, err)
	}
	if token == "" && app == nil {
		return fail(exitUsage, errors.New("GITHUB_TOKEN is not set: rollback reads the default branch's history and opens a pull request, as run does (a GitHub App's IMAGEBOT_APP_ID and IMAGEBOT_APP_PRIVATE_KEY work too)"))
	}
	conn, err := connection(o.Repo, token)
	if err != nil {
		return fail(exitUsage, err)
	}
	conn.Logger, conn.App = log, app
	sess, err := gitops.Open(ctx, conn)
	if err != nil {
		return fail(exitPartial, err)
	}
	cfg, err := treeConfig(sess, o.Config)
	if err != nil {
		return fail(exitUsage, err)
	}
	e, err := engineFor(o.commonOptions, cfg, sess.FS(), tipName(sess), log, stderr)
	if err != nil {
		return fail(exitUsage, err)
	}
	res, err := scan.FS(ctx, sess.FS(), cfg.Included, scan.WithMaxFileSize(int64(cfg.MaxFileSize)))
	if err != nil {
		return fail(exitUsage, err)
	}
	u, err := rollbackUpdate(ctx, e, sess, image, o.To, res.Refs)
	if err != nil {
		return fail(exitUsage, err)
	}
	if u == nil {
		fmt.Fprintf(stdout, "%s is at %s already: nothing to roll back\n", image, o.To)
		return exitOK
	}
	p := &plan.Plan{Updates: []plan.Update{*u}}
	ro := pullRequestOptions(runOptions{commonOptions: o.commonOptions, DryRun: o.DryRun}, cfg, stdout)
	ro.Details, ro.Partial = e.reg.Info, true
	out, err := sess.Run(ctx, p, ro)
	if err != nil {
		return fail(exitPartial, err)
	}
	printRun(stdout, p, out)
	if len(out.Failed) > 0 || len(out.RateLimited) > 0 {
		return exitPartial
	}
	return exitOK
}

// rollbackImage normalizes IMAGE, which names a repository, not a tag.
func rollbackImage(arg string) (string, error) {
	if strings.ContainsAny(arg, "@") || strings.Contains(arg[strings.LastIndex(arg, "/")+1:], ":") {
		return "", fmt.Errorf("IMAGE %q names a tag or digest: name the image alone, and the tag with --to", arg)
	}
	img, err := scan.NormalizeName(arg)
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
	tags, err := e.reg.Tags(ctx, image)
	if err != nil {
		return nil, fmt.Errorf("look up %s: %w", image, err)
	}
	if !slices.Contains(tags, to) {
		return nil, fmt.Errorf("%s:%s is not in the registry: nodes could not pull it", image, to)
	}
	var digest string
	if slices.ContainsFunc(refs, func(r scan.Ref) bool { return r.Digest != "" }) {
		if digest, err = e.reg.Digest(ctx, image, to); err != nil {
			return nil, fmt.Errorf("digest of %s:%s: %w", image, to, err)
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
			u = &plan.Update{Image: image, From: r.Tag, To: to, Type: plan.TypeRollback, Kind: plan.KindRollback, Evidence: []string{why}}
		}
		if c.Digest != "" {
			u.Digest = digest
		}
		u.Changes = append(u.Changes, c)
		u.Locations = append(u.Locations, r.Location)
	}
	return u, nil
}
