package bitbuckettest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/imagebot/imagebot/internal/testing/forgetest"
)

// DataCenter is a fake Bitbucket Data Center (formerly Server), REST API
// 1.0 at any path (/rest/api/1.0), for the subset a pull-request
// lifecycle needs. It answers as Data Center documents: HTTP access tokens
// as Bearer (a wrong one a 401, a read-only one a 401 on writes, as Data
// Center's token permissions answer); pages of `start` and `limit` (25
// unasked, at most MaxLimit) with isLastPage and nextPageStart; pull
// requests filtered by `state` (OPEN unless asked; ALL), `at` (a branch's
// full ref) with `direction` OUTGOING, and `order` OLDEST or NEWEST (the
// default); a
// second open pull request for a branch pair a 409 with
// DuplicatePullRequestException and the existing one; updates and declines
// that name a stale `version` a 409 PullRequestOutOfDateException;
// auto-merge (8.15 and later) that a successful build status of the source
// commit completes; build statuses under /rest/build-status/1.0; who the
// token is in the X-AUSERNAME header; and error bodies
// {"errors":[{"message":…,"exceptionName":…}]}.
type DataCenter struct {
	token, login string
	readOnly     map[string]bool
	maxLimit     int
	clock        func() time.Time
	http         *httptest.Server

	// Meter counts authenticated requests (Requests) and those that ask
	// to change something (Writes).
	forgetest.Meter

	mu       sync.Mutex
	repos    map[string]*DCRepo
	statuses map[string][]Status // by commit
}

// DCUser is the token's user on the fake Data Center.
const DCUser = "imagebot"

// DCRepo is a repository of a project.
type DCRepo struct {
	Project, Slug, DefaultBranch string
	DeletedBranches              []string
	git                          forgetest.GitBackend // nil: no git modelled
	prs                          []*DCPR
}

// DCPR is a Data Center pull request.
type DCPR struct {
	ID, Version      int
	Title, Desc      string
	State            string // OPEN, DECLINED, MERGED
	Author           string
	From, To         string // branch names
	FromRepo         string // "PROJ/slug"
	FromCommit       string // without git; with it, the branch's tip (head)
	Reviewers        []string
	Comments         []string
	AutoMerge, Draft bool
	Created          time.Time
}

// DCOption configures NewDataCenter.
type DCOption func(*DataCenter)

// WithDCToken sets the HTTP access token that acts as DCUser.
func WithDCToken(token string) DCOption { return func(d *DataCenter) { d.token = token } }

// WithDCReadOnlyToken adds a token with read permission only.
func WithDCReadOnlyToken(token string) DCOption {
	return func(d *DataCenter) { d.readOnly[token] = true }
}

// WithDCClock sets the time the fake lives in.
func WithDCClock(now func() time.Time) DCOption { return func(d *DataCenter) { d.clock = now } }

// WithMaxLimit sets the largest page (page.max.pullrequests), so that a few
// pull requests take several pages.
func WithMaxLimit(n int) DCOption { return func(d *DataCenter) { d.maxLimit = n } }

// NewDataCenter starts a fake Bitbucket Data Center. Close it when done.
func NewDataCenter(opts ...DCOption) *DataCenter {
	d := &DataCenter{token: DefaultToken, login: DCUser, readOnly: map[string]bool{}, maxLimit: 1000,
		clock: time.Now, repos: map[string]*DCRepo{}, statuses: map[string][]Status{}}
	for _, o := range opts {
		o(d)
	}
	const r = "/rest/api/1.0/projects/{key}/repos/{slug}"
	mux := http.NewServeMux()
	for pattern, h := range map[string]http.HandlerFunc{
		"GET " + r:                                    d.getRepo,
		"GET " + r + "/default-branch":                d.defaultBranch,
		"GET " + r + "/pull-requests":                 d.listPulls,
		"POST " + r + "/pull-requests":                d.createPull,
		"GET " + r + "/pull-requests/{id}":            d.getPull,
		"GET " + r + "/pull-requests/{id}/activities": d.activities,
		"DELETE /rest/branch-utils/1.0/projects/{key}/repos/{slug}/branches": d.deleteBranch,
		"PUT " + r + "/pull-requests/{id}":                                   d.updatePull,
		"POST " + r + "/pull-requests/{id}/decline":                          d.declinePull,
		"POST " + r + "/pull-requests/{id}/comments":                         d.comment,
		"POST " + r + "/pull-requests/{id}/auto-merge":                       d.autoMerge,
		"POST /rest/build-status/1.0/commits/{sha}":                          d.postStatus,
		"GET /rest/build-status/1.0/commits/{sha}":                           d.listStatuses,
		"/": func(w http.ResponseWriter, _ *http.Request) {
			dcFail(w, http.StatusNotFound, "NoSuchResourceException", "Not found")
		},
	} {
		mux.HandleFunc(pattern, h)
	}
	d.http = httptest.NewServer(d.front(mux))
	return d
}

// URL is the server's root (the REST API is under URL()/rest/api/1.0).
func (d *DataCenter) URL() string { return d.http.URL }

// Close stops the server.
func (d *DataCenter) Close() { d.http.Close() }

// AddRepo serves project/slug with defaultBranch.
func (d *DataCenter) AddRepo(project, slug, defaultBranch string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.repos[project+"/"+slug] = &DCRepo{Project: project, Slug: slug, DefaultBranch: defaultBranch}
}

// PRs is a copy of the repository's pull requests, by ID.
func (d *DataCenter) PRs(repository string) []DCPR {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []DCPR
	r := d.repos[repository]
	for _, pr := range r.prs {
		c := *pr
		c.FromCommit = r.head(pr)
		out = append(out, c)
	}
	return out
}

// OpenPR opens a pull request as author from the repository's own branch,
// or from fork ("~USER/slug", a personal project's fork) when it is not "".
func (d *DataCenter) OpenPR(repository, from, to, title, author, fork string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	r := d.repos[repository]
	src := repository
	if fork != "" {
		src = fork
	}
	pr := &DCPR{ID: len(r.prs) + 1, Title: title, State: "OPEN", Author: author, From: from, To: to,
		FromRepo: src, FromCommit: "c0ffee" + strconv.Itoa(len(r.prs)+1), Created: d.clock()}
	r.prs = append(r.prs, pr)
	return pr.ID
}

func (d *DataCenter) front(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || (tok != d.token && !d.readOnly[tok]) {
			dcFail(w, http.StatusUnauthorized, "AuthorisationException", "Authentication failed. Please check your credentials and try again.")
			return
		}
		write := r.Method != http.MethodGet && r.Method != http.MethodHead
		d.CountRequest(write)
		if write && d.readOnly[tok] {
			dcFail(w, http.StatusUnauthorized, "AuthorisationException", "You are not permitted to access this resource")
			return
		}
		w.Header().Set("X-AUSERNAME", d.login)
		next.ServeHTTP(w, r)
	})
}

// dcFail writes Data Center's error body.
func dcFail(w http.ResponseWriter, status int, exception, msg string, extra ...any) {
	e := map[string]any{"context": nil, "message": msg, "exceptionName": "com.atlassian.bitbucket." + exception}
	for i := 0; i+1 < len(extra); i += 2 {
		e[extra[i].(string)] = extra[i+1]
	}
	reply(w, status, map[string]any{"errors": []any{e}})
}

// dcPage answers one page of items by start and limit.
func (d *DataCenter) dcPage(w http.ResponseWriter, r *http.Request, items []any) {
	q := r.URL.Query()
	start, limit := 0, 25
	if v := q.Get("start"); v != "" {
		start, _ = strconv.Atoi(v)
	}
	if v := q.Get("limit"); v != "" {
		limit, _ = strconv.Atoi(v)
	}
	if start < 0 || limit < 1 {
		dcFail(w, http.StatusBadRequest, "validation.ArgumentValidationException", "start and limit must be positive")
		return
	}
	limit = min(limit, d.maxLimit)
	lo := min(start, len(items))
	hi := min(lo+limit, len(items))
	out := map[string]any{"size": hi - lo, "limit": limit, "start": start, "isLastPage": hi >= len(items),
		"values": append([]any{}, items[lo:hi]...)}
	if hi < len(items) {
		out["nextPageStart"] = hi
	}
	reply(w, http.StatusOK, out)
}

func (d *DataCenter) repo(w http.ResponseWriter, r *http.Request) *DCRepo {
	rp := d.repos[r.PathValue("key")+"/"+r.PathValue("slug")]
	if rp == nil {
		dcFail(w, http.StatusNotFound, "repository.NoSuchRepositoryException",
			fmt.Sprintf("Repository %s does not exist in project %s.", r.PathValue("slug"), r.PathValue("key")))
	}
	return rp
}

func (d *DataCenter) getRepo(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if rp := d.repo(w, r); rp != nil {
		reply(w, http.StatusOK, map[string]any{"slug": rp.Slug, "name": rp.Slug, "project": map[string]any{"key": rp.Project},
			"links": map[string]any{"self": []any{map[string]any{"href": fmt.Sprintf("%s/projects/%s/repos/%s/browse", d.URL(), rp.Project, rp.Slug)}}}})
	}
}

func (d *DataCenter) defaultBranch(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if rp := d.repo(w, r); rp != nil {
		reply(w, http.StatusOK, map[string]any{"id": "refs/heads/" + rp.DefaultBranch, "displayId": rp.DefaultBranch, "isDefault": true})
	}
}

func (d *DataCenter) prJSON(rp *DCRepo, pr *DCPR) map[string]any {
	ref := func(branch, repository, commit string) map[string]any {
		project, slug, _ := strings.Cut(repository, "/")
		return map[string]any{"id": "refs/heads/" + branch, "displayId": branch, "latestCommit": commit,
			"repository": map[string]any{"slug": slug, "project": map[string]any{"key": project}}}
	}
	var reviewers []any
	for _, rv := range pr.Reviewers {
		reviewers = append(reviewers, map[string]any{"user": map[string]any{"name": rv, "slug": rv}, "role": "REVIEWER"})
	}
	return map[string]any{"id": pr.ID, "version": pr.Version, "title": pr.Title, "description": pr.Desc,
		"state": pr.State, "open": pr.State == "OPEN", "closed": pr.State != "OPEN", "draft": pr.Draft,
		"author":      map[string]any{"user": map[string]any{"name": pr.Author, "slug": pr.Author}, "role": "AUTHOR"},
		"fromRef":     ref(pr.From, pr.FromRepo, rp.head(pr)),
		"toRef":       ref(pr.To, rp.Project+"/"+rp.Slug, ""),
		"reviewers":   append([]any{}, reviewers...),
		"createdDate": pr.Created.UnixMilli(),
		"links": map[string]any{"self": []any{map[string]any{"href": fmt.Sprintf("%s/projects/%s/repos/%s/pull-requests/%d",
			d.URL(), rp.Project, rp.Slug, pr.ID)}}}}
}

// listPulls filters by state, at (with direction OUTGOING, the source
// branch; INCOMING, the target) and orders by order.
func (d *DataCenter) listPulls(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	defer d.mu.Unlock()
	rp := d.repo(w, r)
	if rp == nil {
		return
	}
	q := r.URL.Query()
	state := strings.ToUpper(q.Get("state"))
	if state == "" {
		state = "OPEN"
	}
	at := q.Get("at")
	outgoing := strings.ToUpper(q.Get("direction")) == "OUTGOING"
	var items []any
	for i := range rp.prs {
		pr := rp.prs[i]
		if !strings.EqualFold(q.Get("order"), "OLDEST") { // NEWEST by default
			pr = rp.prs[len(rp.prs)-1-i]
		}
		branch := "refs/heads/" + pr.To
		if outgoing && pr.FromRepo == rp.Project+"/"+rp.Slug {
			branch = "refs/heads/" + pr.From // a fork's branch is not this repository's ref
		} else if outgoing {
			branch = ""
		}
		if (state == "ALL" || pr.State == state) && (at == "" || at == branch && branch != "") {
			items = append(items, d.prJSON(rp, pr))
		}
	}
	d.dcPage(w, r, items)
}

// DeletedBranches are the branches deleted through the API.
func (d *DataCenter) DeletedBranches(repository string) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.repos[repository].DeletedBranches...)
}

// AddStatus reports a build status on commit, as CI does, replacing the
// one with its key; it may complete an auto-merge.
func (d *DataCenter) AddStatus(commit string, st Status) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.putStatus(commit, st)
	for _, rp := range d.repos {
		for _, pr := range rp.prs {
			if rp.head(pr) == commit {
				d.settle(rp, pr)
			}
		}
	}
}

// SetGit models repository's branches with git (forgetest.BareRepos over
// gittest's repositories): a pull request's source commit is its
// branch's tip, MergePR merges, and deleting a branch deletes it.
func (d *DataCenter) SetGit(repository string, git forgetest.GitBackend) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.repos[repository].git = git
}

// head is pr's source commit.
func (r *DCRepo) head(pr *DCPR) string {
	if r.git != nil {
		sha, _ := r.git.BranchSHA(r.Project, r.Slug, pr.From)
		return sha
	}
	return pr.FromCommit
}

// DescribePR sets pull request id's description, as its author editing
// it would (a new version).
func (d *DataCenter) DescribePR(repository string, id int, desc string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	pr := d.repos[repository].prs[id-1]
	pr.Desc = desc
	pr.Version++
}

// DeclinePR declines pull request id as a person would.
func (d *DataCenter) DeclinePR(repository string, id int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	pr := d.repos[repository].prs[id-1]
	pr.State, pr.AutoMerge = "DECLINED", false
	pr.Version++
}

// MergePR merges pull request id as a person would (with git, a merge
// commit of its source on its target).
func (d *DataCenter) MergePR(repository string, id int) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	r := d.repos[repository]
	pr := r.prs[id-1]
	if pr.State != "OPEN" {
		return fmt.Errorf("#%d is %s", id, pr.State)
	}
	if r.git != nil {
		_, err := r.git.Merge(r.Project, r.Slug, forgetest.MergeRequest{Base: pr.To, Head: pr.From, Method: "merge",
			Title: fmt.Sprintf("Merge pull request #%d in %s from %s to %s", id, repository, pr.From, pr.To), When: d.clock()})
		if err != nil {
			return err
		}
	}
	pr.State, pr.AutoMerge = "MERGED", false
	pr.Version++
	return nil
}
