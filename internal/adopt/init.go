package adopt

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"slices"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
	"golang.org/x/sync/errgroup"

	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/policy"
	"github.com/imagebot/imagebot/internal/scan"
)

// TagLister lists every tag of a repository, as the scan parsed its name:
// the registry client `plan` uses, with the same mirrors and concurrency.
type TagLister interface {
	Tags(ctx context.Context, repo name.Repository) ([]string, error)
}

// Options are what every kind of init shares.
type Options struct {
	// Registry is asked for tags to suggest policies; nil suggests none.
	Registry TagLister
	// Concurrency bounds the tag listings in flight (default 4).
	Concurrency int
	// ActionRef is the ref of imagebot/imagebot the workflow uses ("v1").
	ActionRef string
	// Mirrors are the mirror URLs by registry host that init was given
	// (--mirror): they go into the config, so that plan and run use them
	// too.
	Mirrors map[string]string
	// Runner is the CI whose workflow is written: OnGitHub, OnGitea or
	// OnForgejo.
	Runner string
	// GitLab writes a GitLab CI job instead of the Actions workflow: the
	// origin is on GitLab. HasGitLabCI says the repository has a
	// .gitlab-ci.yml already, which init leaves alone; Release is the
	// imagebot release the job installs ("1.2.3"; "" a placeholder).
	GitLab, HasGitLabCI bool
	Release             string
	// Azure writes an Azure Pipelines pipeline (AzurePipelinesPath)
	// instead: the origin is on Azure DevOps. Branch is the default
	// branch its schedule runs on ("" is main).
	Azure  bool
	Branch string
	// HasBitbucketPipelines says the repository has a
	// bitbucket-pipelines.yml (Runner OnBitbucket), which init never
	// replaces: Result.Snippet is the pipeline to add to it.
	HasBitbucketPipelines bool
	// Repository is the repository's owner/name on its forge ("" when
	// unknown): a Renovate preset kept in it is followed.
	Repository string
}

// Result is what init writes, and what it could not do.
type Result struct {
	Config   []byte // .imagebot.yaml
	Workflow []byte // .github/workflows/imagebot.yml, Gitea's or Forgejo's, or GitLab CI's job
	// WorkflowPath is where Workflow goes: WorkflowPath, Gitea's or
	// Forgejo's, GitLabCIPath or GitLabIncludePath, AzurePipelinesPath
	// or BitbucketPipelinesPath. Workflow is nil where init writes no CI
	// file: on Bitbucket Data Center, which has no CI, and where
	// bitbucket-pipelines.yml exists.
	WorkflowPath string
	// Snippet is what to add to a CI file init leaves alone, to print:
	// the pipeline for an existing bitbucket-pipelines.yml.
	Snippet []byte
	Notes   []Note
	// Markers are the lines whose value Flux updates through a marker and
	// imagebot finds only with a marker of its own; see RewriteMarkers.
	Markers []Marker
	// Limits are the pull request limits the config sets.
	Limits Limits
	// From names what was converted ("renovate.json5", "Flux image
	// automation"); "" for a config read from the repository as it is.
	From string
	// Handover says, in Markdown, what to turn off in the tool converted
	// from so that the two never propose the same update; "" for none.
	Handover string
	// waits says where the updates the limits hold wait: on the
	// dashboard, or in the run's log on a host without issues.
	waits string
}

// Init writes a configuration for the repository in fsys as it is: the
// registries its manifests pull from, with credential stubs for those that
// look private, and a policy for each tag scheme that the default rule
// cannot order, learnt from the registry's tags (a git hash after a date or
// version). Floating tags get a commented `pin: tag` suggestion.
func Init(ctx context.Context, fsys fs.FS, o Options) (*Result, error) {
	res, err := scan.FS(ctx, fsys, nil)
	if err != nil {
		return nil, fmt.Errorf("scan the repository: %w", err)
	}
	d := &draft{origin: "init", hosts: hostsOf(res.Refs)}
	d.excludes(fsys, res.Refs, true)
	var ns notes
	if o.Registry != nil {
		if err := suggest(ctx, d, res.Refs, o, &ns); err != nil {
			return nil, err
		}
	}
	return finish(d, ns, o, "")
}

// finish renders the draft and the workflow, and keeps where the updates
// the limits hold wait, for Lead.
func finish(d *draft, ns notes, o Options, cron string) (*Result, error) {
	res, err := render(d, ns, o, cron)
	if res != nil {
		res.waits = d.ci.waits
	}
	return res, err
}

// render renders the draft and the CI file of o's host.
func render(d *draft, ns notes, o Options, cron string) (*Result, error) {
	d.notes = ns.sorted()
	d.mirrors = o.Mirrors
	d.onGitHub = !o.GitLab && !o.Azure && o.Runner == OnGitHub
	d.ci = ciWordsOf(ciOf(o))
	cfg, err := d.render()
	if err != nil {
		return nil, err
	}
	if o.GitLab {
		path, ci, note, err := gitlabCIFor(o.HasGitLabCI, o.Release)
		if err != nil {
			return nil, err
		}
		res := &Result{Config: cfg, Workflow: ci, WorkflowPath: path, Notes: d.notes, Limits: d.limits()}
		if note != "" {
			res.Notes = append(res.Notes, Note{File: GitLabCIPath, Msg: note})
		}
		return res, nil
	}
	if o.Azure {
		wf, err := azurePipeline(o.Release, o.Branch, cron, d.hosts)
		if err != nil {
			return nil, err
		}
		return &Result{Config: cfg, Workflow: wf, WorkflowPath: AzurePipelinesPath, Notes: d.notes, Limits: d.limits()}, nil
	}
	switch o.Runner {
	case OnBitbucket:
		res := &Result{Config: cfg, Notes: d.notes, Limits: d.limits()}
		return res, bitbucketPipelineFor(res, o.HasBitbucketPipelines, o.Release, d.hosts)
	case OnNoCI:
		return &Result{Config: cfg, Notes: d.notes, Limits: d.limits()}, nil
	}
	wf, err := workflowFor(o.ActionRef, cron, d.hosts, o.Runner)
	if err != nil {
		return nil, err
	}
	return &Result{Config: cfg, Workflow: wf, WorkflowPath: workflowPath(o.Runner), Notes: d.notes, Limits: d.limits()}, nil
}

// image is one image of the repository and the tags it is used at.
type image struct {
	name string
	tags []string            // distinct current tags, in scan order
	at   map[string]scan.Ref // the first reference of each tag
	list []string            // the registry's tags
	err  error
}

func imagesOf(refs []scan.Ref) []*image {
	by := map[string]*image{}
	var out []*image
	for _, r := range refs {
		if r.Image == "" || r.Tag == "" {
			continue
		}
		im := by[r.Image]
		if im == nil {
			im = &image{name: r.Image, at: map[string]scan.Ref{}}
			by[r.Image] = im
			out = append(out, im)
		}
		if _, ok := im.at[r.Tag]; !ok {
			im.at[r.Tag] = r
			im.tags = append(im.tags, r.Tag)
		}
	}
	slices.SortFunc(out, func(a, b *image) int { return strings.Compare(a.name, b.name) })
	return out
}

// suggest lists each image's tags once and adds what the default rule
// needs help with. A failed lookup is a note, never the end of init.
func suggest(ctx context.Context, d *draft, refs []scan.Ref, o Options, ns *notes) error {
	ims := imagesOf(refs)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(cmp.Or(o.Concurrency, 4), 1))
	for _, im := range ims {
		g.Go(func() error {
			im.list, im.err = o.Registry.Tags(gctx, im.at[im.tags[0]].Repo)
			return nil
		})
	}
	_ = g.Wait() // lookups never fail the group; each keeps its error
	if err := ctx.Err(); err != nil {
		return err
	}
	def, err := policy.New(policy.Spec{})
	if err != nil {
		return err
	}
	for _, im := range ims {
		first := im.at[im.tags[0]]
		if im.err != nil {
			if denied(im.err) {
				if h := find(d.hosts, strings.SplitN(im.name, "/", 2)[0]); h != nil {
					h.denied = true
				}
				ns.add(first.File, first.Line, "%s: the registry wants credentials to list tags (see the registries stub in .imagebot.yaml)", im.name)
				continue
			}
			ns.add(first.File, first.Line, "%s: tags could not be listed, so no policy was suggested: %v", im.name, im.err)
			continue
		}
		suggestFor(d, im, def, ns)
	}
	return nil
}

// denied reports a 401 or 403 from the registry.
func denied(err error) bool {
	var te *transport.Error
	return errors.As(err, &te) && (te.StatusCode == http.StatusUnauthorized || te.StatusCode == http.StatusForbidden)
}

// suggestFor looks at one image's current tags against its listing.
func suggestFor(d *draft, im *image, def *policy.Policy, ns *notes) {
	var floating []string
	patterns := map[string]bool{}
	for _, t := range im.tags {
		if policy.Mutable(t, im.list) {
			floating = append(floating, t)
			continue
		}
		if _, ok, _ := def.Latest(t, im.list); ok {
			continue
		}
		p, hashOnly, ok := hashScheme(t)
		switch {
		case ok:
			patterns[p] = true
		case hashOnly:
			r := im.at[t]
			ns.add(r.File, r.Line, "%s:%s: a git hash alone cannot be ordered; use tags with a version or date (or pin this one by hand)", im.name, t)
		}
	}
	if len(floating) > 0 {
		d.suggestions = append(d.suggestions,
			fmt.Sprintf("%s is used at floating %s %s, which imagebot leaves alone.", im.name, plural(len(floating), "tag", "tags"), strings.Join(floating, ", ")),
			"To pin it to the exact version with the same digest, add:",
			"  - match: "+im.name,
			"    pin: tag")
	}
	if len(patterns) != 1 {
		if len(patterns) > 1 {
			r := im.at[im.tags[0]]
			ns.add(r.File, r.Line, "%s is used with several hash-suffixed tag schemes; one pattern cannot fit them all, so none was suggested", im.name)
		}
		return
	}
	for p := range patterns {
		suggestPattern(d, im, p, ns)
	}
}

// suggestPattern adds the policy for a hash-suffixed scheme when it fits
// every tag the image is used at, and says what it would propose now.
func suggestPattern(d *draft, im *image, pattern string, ns *notes) {
	pol, err := policy.New(policy.Spec{Pattern: pattern})
	if err != nil {
		return // hashScheme quotes every literal; nothing to suggest otherwise
	}
	var moves []string
	for _, t := range im.tags {
		to, ok, err := pol.Latest(t, im.list)
		if err != nil {
			r := im.at[t]
			ns.add(r.File, r.Line, "%s:%s does not fit the scheme of its other tags (%s); no policy was suggested", im.name, t, pattern)
			return
		}
		if ok {
			moves = append(moves, t+" -> "+to)
		} else {
			moves = append(moves, t+" is the newest")
		}
	}
	d.add(entry{
		comment: []string{
			"Tags end in a git hash, which the default rule cannot order: compare",
			"what comes before it (a date, a build or a version) and only require the",
			"hash. Now: " + strings.Join(moves, "; ") + ".",
		},
		p: config.Policy{Match: im.name, Pattern: ptr(pattern)},
	})
}
