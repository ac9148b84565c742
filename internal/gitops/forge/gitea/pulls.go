package gitea

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"code.gitea.io/sdk/gitea"

	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// giteaPerPage is the page every Gitea listing asks for: Gitea's largest
// by default ([api] MAX_RESPONSE_ITEMS = 50).
const giteaPerPage = 50

// maxGiteaPages bounds the listings of one PR's comments and one commit's
// statuses: 500 of either is far beyond what one carries.
const maxGiteaPages = 10

// wipPrefixes are the title prefixes that make a Gitea or Forgejo pull
// request a draft ([repository.pull-request] WORK_IN_PROGRESS_PREFIXES,
// "WIP:,[WIP]" by default; "Draft:" as people write it too).
var wipPrefixes = []string{"WIP:", "[WIP]", "Draft:", "[Draft]"}

// giteaDraft is what a new draft's title starts with on Gitea.
const giteaDraft = "WIP: "

// splitWIP splits a draft's title into its prefix and the title proper.
func splitWIP(title string) (prefix, rest string) {
	for _, p := range wipPrefixes {
		if len(title) >= len(p) && strings.EqualFold(title[:len(p)], p) {
			rest = strings.TrimLeft(title[len(p):], " ")
			return title[:len(title)-len(rest)], rest
		}
	}
	return "", title
}

// fromTeaPull is a pull request as the lifecycle reads it. A draft's
// title is read without its prefix, which is remembered for edits.
func (g *tea) fromTeaPull(pr *gitea.PullRequest) *forge.Change {
	c := &forge.Change{Number: int(pr.Index), URL: pr.HTMLURL, Title: pr.Title, Body: pr.Body,
		State: string(pr.State), Merged: pr.HasMerged}
	if pr.Poster != nil {
		c.Author = pr.Poster.UserName
	}
	c.Head, c.Base, c.OwnBranch = teaBranches(pr)
	if pr.Created != nil {
		c.Created = *pr.Created
	}
	for _, l := range pr.Labels {
		c.Labels = append(c.Labels, l.Name)
	}
	if pr.Draft {
		if p, rest := splitWIP(pr.Title); p != "" {
			c.Title = rest
			g.mu.Lock()
			g.wip[c.Number] = p
			g.mu.Unlock()
		}
	}
	return c
}

// teaBranches are a pull request's head and base branches, and whether
// the head is the repository's own: a fork's head has a repository of its
// own, a deleted fork's none.
func teaBranches(pr *gitea.PullRequest) (head, base string, own bool) {
	if pr.Base != nil {
		base = pr.Base.Ref
	}
	if pr.Head != nil {
		head = pr.Head.Ref
		own = pr.Base != nil && pr.Head.RepoID != 0 && pr.Head.RepoID == pr.Base.RepoID
	}
	return head, base, own
}

// keepsTea reports whether q keeps pr, read without its body.
func keepsTea(q forge.Query, pr *gitea.PullRequest) bool {
	c := &forge.Change{State: string(pr.State)}
	c.Head, c.Base, c.OwnBranch = teaBranches(pr)
	if pr.Poster != nil {
		c.Author = pr.Poster.UserName
	}
	return q.Keeps(c)
}

// pulls lists the pull requests q keeps, oldest first, and calls each
// with them until it returns false, else to the last page; the others,
// and their bodies, go with their page.
// Gitea filters by state, and by author (poster, Gitea 1.23 and later;
// an earlier one ignores it); the rest is read here.
func (g *tea) pulls(ctx context.Context, q forge.Query, each func(*gitea.PullRequest) bool) error {
	state := q.State
	if state == "" {
		state = "all"
	}
	c := g.client(ctx)
	if q.Author != "" {
		// The SDK has no poster option: the query is added on the way.
		hc := *g.http
		hc.Transport = withQuery{base: hc.Transport, key: "poster", value: q.Author}
		c.SetHTTPClient(&hc)
	}
	opts := gitea.ListPullRequestsOptions{State: gitea.StateType(state), Sort: "oldest",
		ListOptions: gitea.ListOptions{Page: 1, PageSize: giteaPerPage}}
	what := "list " + state + " pull requests"
	return forge.Pages(what, 0, func(page int) (int, error) {
		opts.Page = page
		prs, resp, err := c.ListRepoPullRequests(g.owner, g.name, opts)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", what, g.teaErr(resp, err))
		}
		for _, pr := range prs {
			if keepsTea(q, pr) && !each(pr) {
				return 0, nil
			}
		}
		return resp.NextPage, nil
	})
}

// withQuery adds a query parameter to every request it sends.
type withQuery struct {
	base       http.RoundTripper
	key, value string
}

func (t withQuery) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	r := req.Clone(req.Context())
	q := r.URL.Query()
	q.Set(t.key, t.value)
	r.URL.RawQuery = q.Encode()
	return base.RoundTrip(r)
}

// Changes lists the pull requests q keeps, every page. Gitea's listing
// filters by neither head nor base: they are read page by page.
func (g *tea) Changes(ctx context.Context, q forge.Query) ([]*forge.Change, error) {
	var out []*forge.Change
	err := g.pulls(ctx, q, func(pr *gitea.PullRequest) bool {
		out = append(out, g.fromTeaPull(pr))
		return true
	})
	return out, err
}

// ClosedChanges is the closed pull requests of branches that by keeps:
// one listing of the closed ones, a page per 50 (by the bot's author
// alone, where Gitea filters so). Gitea's listing filters by no head, and
// its by-branch lookup returns one pull request of any state, so the
// listing is the one exact way.
func (g *tea) ClosedChanges(ctx context.Context, by forge.Query, branches []string) (map[string][]*forge.Change, error) {
	out := map[string][]*forge.Change{}
	if len(branches) == 0 {
		return out, nil
	}
	want := map[string]bool{}
	for _, b := range branches {
		want[b] = true
	}
	err := g.pulls(ctx, forge.Query{State: "closed", Base: by.Base, Author: by.Author}, func(pr *gitea.PullRequest) bool {
		if c := g.fromTeaPull(pr); want[c.Head] {
			out[c.Head] = append(out[c.Head], c)
		}
		return true
	})
	return out, err
}

// CreateChange opens a pull request, a draft with the "WIP: " prefix.
// Gitea answers 409 when one is open for the branch already (an earlier
// run raced us): that one is returned.
func (g *tea) CreateChange(ctx context.Context, c forge.NewChange) (*forge.Change, bool, error) {
	title := c.Title
	if c.Draft {
		title = giteaDraft + title
	}
	pr, resp, err := g.client(ctx).CreatePullRequest(g.owner, g.name, gitea.CreatePullRequestOption{
		Head: c.Head, Base: c.Base, Title: title, Body: c.Body,
	})
	if err == nil {
		return g.fromTeaPull(pr), true, nil
	}
	err = g.teaErr(resp, err)
	if teaStatus(err) == http.StatusConflict {
		// Whoever opened it: the lifecycle tells the bot's from others'.
		// Gitea lists by no branch: the listing stops at the first.
		var open *forge.Change
		lerr := g.pulls(ctx, forge.Query{State: "open", Head: c.Head, Base: c.Base}, func(pr *gitea.PullRequest) bool {
			open = g.fromTeaPull(pr)
			return false
		})
		if lerr == nil && open != nil {
			return open, false, nil
		}
	}
	return nil, false, fmt.Errorf("open pull request for %s: %w", c.Head, err)
}

// EditChange edits a pull request; a draft keeps its prefix.
func (g *tea) EditChange(ctx context.Context, n int, e forge.ChangeEdit) error {
	var opt gitea.EditPullRequestOption
	if e.Title != nil {
		g.mu.Lock()
		opt.Title = g.wip[n] + *e.Title
		g.mu.Unlock()
	}
	opt.Body = e.Body
	if e.Close {
		closed := gitea.StateClosed
		opt.State = &closed
	}
	if _, resp, err := g.client(ctx).EditPullRequest(g.owner, g.name, int64(n), opt); err != nil {
		return fmt.Errorf("edit pull request #%d: %w", n, g.teaErr(resp, err))
	}
	return nil
}

// Label adds labels by name. Gitea labels by ID: the repository's labels
// are listed once per run, and those it lacks are created.
func (g *tea) Label(ctx context.Context, n int, names []string) error {
	ids, err := g.labelIDs(ctx, names)
	if err != nil {
		return fmt.Errorf("label #%d: %w", n, err)
	}
	if _, resp, err := g.client(ctx).AddIssueLabels(g.owner, g.name, int64(n), gitea.IssueLabelsOption{Labels: ids}); err != nil {
		return fmt.Errorf("label #%d: %w", n, g.teaErr(resp, err))
	}
	return nil
}

// labelColor is the colour of the labels imagebot creates: Gitea requires
// one; this is GitHub's default grey.
const labelColor = "#ededed"

func (g *tea) labelIDs(ctx context.Context, names []string) ([]int64, error) {
	c := g.client(ctx)
	g.mu.Lock()
	known := g.labels
	g.mu.Unlock()
	if known == nil {
		known = map[string]int64{}
		opts := gitea.ListLabelsOptions{ListOptions: gitea.ListOptions{Page: 1, PageSize: giteaPerPage}}
		err := forge.Pages("list labels", 0, func(page int) (int, error) {
			opts.Page = page
			ls, resp, err := c.ListRepoLabels(g.owner, g.name, opts)
			if err != nil {
				return 0, fmt.Errorf("list labels: %w", g.teaErr(resp, err))
			}
			for _, l := range ls {
				known[strings.ToLower(l.Name)] = l.ID
			}
			return resp.NextPage, nil
		})
		if err != nil {
			return nil, err
		}
	}
	var ids []int64
	for _, name := range names {
		id, ok := known[strings.ToLower(name)]
		if !ok {
			l, resp, err := c.CreateLabel(g.owner, g.name, gitea.CreateLabelOption{Name: name, Color: labelColor})
			if err != nil {
				return nil, fmt.Errorf("create label %q: %w", name, g.teaErr(resp, err))
			}
			id = l.ID
			known[strings.ToLower(name)] = id
		}
		ids = append(ids, id)
	}
	g.mu.Lock()
	g.labels = known
	g.mu.Unlock()
	return ids, nil
}

// RequestReviewers asks users, and the owner's teams ("owner/team").
func (g *tea) RequestReviewers(ctx context.Context, n int, reviewers []string) error {
	var opt gitea.PullReviewRequestOptions
	opt.Reviewers, opt.TeamReviewers = forge.SplitReviewers(g.owner, reviewers)
	if resp, err := g.client(ctx).CreateReviewRequests(g.owner, g.name, int64(n), opt); err != nil {
		return fmt.Errorf("request reviewers on #%d: %w", n, g.teaErr(resp, err))
	}
	return nil
}

// EnableAutoMerge asks Gitea to merge the pull request once its checks
// succeed (merge_when_checks_succeed), in the repository's default merge
// style. Gitea merges at once when the checks already passed.
func (g *tea) EnableAutoMerge(ctx context.Context, c *forge.Change) error {
	style := gitea.MergeStyleMerge
	g.mu.Lock()
	if g.repo != nil && g.repo.DefaultMergeStyle != "" {
		style = g.repo.DefaultMergeStyle
	}
	g.mu.Unlock()
	_, resp, err := g.client(ctx).MergePullRequest(g.owner, g.name, int64(c.Number), gitea.MergePullRequestOption{
		Style: style, MergeWhenChecksSucceed: true,
	})
	if err == nil && resp != nil && resp.StatusCode >= 300 {
		err = errors.New(resp.Status)
	}
	if err != nil {
		return fmt.Errorf("enable auto-merge of #%d: %w", c.Number, g.teaErr(resp, err))
	}
	return nil
}
