package githubtest

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The JSON documents below follow GitHub's REST shapes field for field
// where imagebot could read them, with null where GitHub sends null.

type userJSON struct {
	Login   string `json:"login"`
	ID      int64  `json:"id"`
	NodeID  string `json:"node_id"`
	Type    string `json:"type"`
	HTMLURL string `json:"html_url"`
}

func user(login string) userJSON {
	u := userJSON{Login: login, ID: 583231, Type: "User", HTMLURL: "https://github.com/" + login}
	if strings.HasSuffix(login, "[bot]") {
		u.ID, u.Type = botID(login), "Bot"
	}
	u.NodeID = nodeID("U", login)
	return u
}

type repoJSON struct {
	ID                  int64           `json:"id"`
	NodeID              string          `json:"node_id"`
	Name                string          `json:"name"`
	FullName            string          `json:"full_name"`
	Owner               userJSON        `json:"owner"`
	Private             bool            `json:"private"`
	Visibility          string          `json:"visibility"`
	Fork                bool            `json:"fork"`
	Archived            bool            `json:"archived"`
	HTMLURL             string          `json:"html_url"`
	URL                 string          `json:"url"`
	CloneURL            string          `json:"clone_url"`
	DefaultBranch       string          `json:"default_branch"`
	AllowMergeCommit    bool            `json:"allow_merge_commit"`
	AllowSquashMerge    bool            `json:"allow_squash_merge"`
	AllowRebaseMerge    bool            `json:"allow_rebase_merge"`
	AllowAutoMerge      bool            `json:"allow_auto_merge"`
	DeleteBranchOnMerge bool            `json:"delete_branch_on_merge"`
	Permissions         map[string]bool `json:"permissions"`
}

func (s *Server) repoJSON(r *repo) repoJSON {
	owner := user(r.owner)
	owner.Type = "Organization"
	return repoJSON{
		ID: r.id, NodeID: nodeID("R", r.owner+"/"+r.name), Name: r.name, FullName: r.owner + "/" + r.name,
		Owner: owner, Private: true, Visibility: "private", Fork: r.parent != "",
		HTMLURL: s.URL() + "/" + r.owner + "/" + r.name, URL: s.URL() + "/repos/" + r.owner + "/" + r.name,
		CloneURL: r.cloneURL, DefaultBranch: r.defaultBranch,
		AllowMergeCommit: true, AllowSquashMerge: true, AllowRebaseMerge: true,
		AllowAutoMerge: r.allowAutoMerge, DeleteBranchOnMerge: r.deleteBranchOnMerge,
		Permissions: map[string]bool{"admin": false, "maintain": false, "push": true, "triage": true, "pull": true},
	}
}

type labelJSON struct {
	ID          int64   `json:"id"`
	NodeID      string  `json:"node_id"`
	URL         string  `json:"url"`
	Name        string  `json:"name"`
	Color       string  `json:"color"`
	Default     bool    `json:"default"`
	Description *string `json:"description"`
}

func (s *Server) labelJSON(r *repo, name string) labelJSON {
	id := r.labels[strings.ToLower(name)]
	return labelJSON{
		ID: id, NodeID: nodeID("LA", strconv.FormatInt(id, 10)), Name: name, Color: "ededed",
		URL: s.URL() + "/repos/" + r.owner + "/" + r.name + "/labels/" + url.PathEscape(name),
	}
}

type branchJSON struct {
	Label string   `json:"label"`
	Ref   string   `json:"ref"`
	SHA   string   `json:"sha"`
	User  userJSON `json:"user"`
	Repo  repoJSON `json:"repo"`
}

type teamJSON struct {
	Slug string `json:"slug"`
	Name string `json:"name"`
}

type autoMergeJSON struct {
	EnabledBy     userJSON `json:"enabled_by"`
	MergeMethod   string   `json:"merge_method"`
	CommitTitle   string   `json:"commit_title"`
	CommitMessage string   `json:"commit_message"`
}

// pullJSON is the "pull-request-simple" shape of list results: it has no
// merged, mergeable or counts, which is why a bot must read merged_at.
type pullJSON struct {
	URL                string         `json:"url"`
	ID                 int64          `json:"id"`
	NodeID             string         `json:"node_id"`
	HTMLURL            string         `json:"html_url"`
	DiffURL            string         `json:"diff_url"`
	IssueURL           string         `json:"issue_url"`
	Number             int64          `json:"number"`
	State              string         `json:"state"`
	Locked             bool           `json:"locked"`
	Title              string         `json:"title"`
	User               userJSON       `json:"user"`
	Body               *string        `json:"body"`
	Labels             []labelJSON    `json:"labels"`
	CreatedAt          string         `json:"created_at"`
	UpdatedAt          string         `json:"updated_at"`
	ClosedAt           *string        `json:"closed_at"`
	MergedAt           *string        `json:"merged_at"`
	MergeCommitSHA     *string        `json:"merge_commit_sha"`
	Assignees          []userJSON     `json:"assignees"`
	RequestedReviewers []userJSON     `json:"requested_reviewers"`
	RequestedTeams     []teamJSON     `json:"requested_teams"`
	Head               branchJSON     `json:"head"`
	Base               branchJSON     `json:"base"`
	AuthorAssociation  string         `json:"author_association"`
	AutoMerge          *autoMergeJSON `json:"auto_merge"`
	Draft              bool           `json:"draft"`
}

// fullPullJSON is the single-PR shape (GET, create, edit).
type fullPullJSON struct {
	pullJSON
	Merged              bool      `json:"merged"`
	Mergeable           *bool     `json:"mergeable"`
	Rebaseable          *bool     `json:"rebaseable"`
	MergeableState      string    `json:"mergeable_state"`
	MergedBy            *userJSON `json:"merged_by"`
	Comments            int       `json:"comments"`
	ReviewComments      int       `json:"review_comments"`
	MaintainerCanModify bool      `json:"maintainer_can_modify"`
	Commits             int       `json:"commits"`
}

func (s *Server) pullJSON(r *repo, p *pull) pullJSON {
	api := fmt.Sprintf("%s/repos/%s/%s", s.URL(), r.owner, r.name)
	html := fmt.Sprintf("%s/%s/%s/pull/%d", s.URL(), r.owner, r.name, p.number)
	rj := s.repoJSON(r)
	j := pullJSON{
		URL: fmt.Sprintf("%s/pulls/%d", api, p.number), ID: p.id, NodeID: pullNodeID(r, p.number),
		HTMLURL: html, DiffURL: html + ".diff", IssueURL: fmt.Sprintf("%s/issues/%d", api, p.number),
		Number: p.number, State: p.state, Title: p.title, User: user(p.author), Body: nullable(p.body),
		Labels: []labelJSON{}, CreatedAt: stamp(p.created), UpdatedAt: stamp(p.updated),
		ClosedAt: nullTime(p.closed), MergedAt: nullTime(p.mergedAt), MergeCommitSHA: nullable(p.mergeCommitSHA),
		Assignees: []userJSON{}, RequestedReviewers: []userJSON{}, RequestedTeams: []teamJSON{},
		Head:              branchJSON{Label: r.owner + ":" + p.head, Ref: p.head, SHA: p.headSHA, User: rj.Owner, Repo: rj},
		Base:              branchJSON{Label: r.owner + ":" + p.base, Ref: p.base, SHA: p.baseSHA, User: rj.Owner, Repo: rj},
		AuthorAssociation: "CONTRIBUTOR", Draft: p.draft,
	}
	if h := p.headRepo; h != nil {
		hj := s.repoJSON(h)
		j.Head.Label, j.Head.User, j.Head.Repo = h.owner+":"+p.head, hj.Owner, hj
	}
	for _, l := range p.labels {
		j.Labels = append(j.Labels, s.labelJSON(r, l))
	}
	for _, u := range p.reviewers {
		j.RequestedReviewers = append(j.RequestedReviewers, user(u))
	}
	for _, t := range p.teams {
		j.RequestedTeams = append(j.RequestedTeams, teamJSON{Slug: t, Name: t})
	}
	if p.autoMerge != "" {
		j.AutoMerge = &autoMergeJSON{EnabledBy: user(botLogin), MergeMethod: p.autoMerge}
	}
	return j
}

func (s *Server) fullPullJSON(r *repo, p *pull) fullPullJSON {
	j := fullPullJSON{pullJSON: s.pullJSON(r, p), Merged: p.merged, MergeableState: "unknown",
		Comments: len(p.comments), MaintainerCanModify: false}
	if p.cmp != nil && p.state == "open" {
		j.Mergeable, j.Rebaseable = &p.cmp.Mergeable, &p.cmp.Mergeable
		j.Commits = p.cmp.AheadBy
		j.MergeableState = mergeableState(r, p)
	}
	if p.merged {
		u := user(p.mergedBy)
		j.MergedBy = &u
	}
	return j
}

// mergeableState is GitHub's verdict on the merge button.
func mergeableState(r *repo, p *pull) string {
	switch {
	case p.draft:
		return "draft"
	case !p.cmp.Mergeable:
		return "dirty"
	case r.requiredCheck != "" && p.base == r.defaultBranch:
		return "blocked"
	}
	return "clean"
}

// page cuts [0,total) into the requested page and sets GitHub's Link
// header (first, prev, next, last) with absolute URLs that keep the
// client's query, so go-github's NextPage and LastPage work.
func (s *Server) page(w http.ResponseWriter, r *http.Request, total int) (lo, hi int) {
	q := r.URL.Query()
	size := 30
	if n, err := strconv.Atoi(q.Get("per_page")); err == nil && n > 0 {
		size = min(n, 100)
	}
	if s.perPage > 0 {
		size = min(size, s.perPage)
	}
	pg := 1
	if n, err := strconv.Atoi(q.Get("page")); err == nil && n > 1 {
		pg = n
	}
	last := max(1, (total+size-1)/size)
	link := func(n int, rel string) string {
		q.Set("page", strconv.Itoa(n))
		orig, _ := r.Context().Value(ctxKey{}).(string)
		return fmt.Sprintf(`<%s%s?%s>; rel="%s"`, s.URL(), orig, q.Encode(), rel)
	}
	var links []string
	if pg > 1 {
		links = append(links, link(min(pg-1, last), "prev"))
	}
	if pg < last {
		links = append(links, link(pg+1, "next"), link(last, "last"))
	}
	if pg > 1 {
		links = append(links, link(1, "first"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	lo = min((pg-1)*size, total)
	return lo, min(lo+size, total)
}

// nodeID makes an opaque GraphQL global ID of the given type prefix.
func nodeID(kind, key string) string {
	return kind + "_" + base64.RawURLEncoding.EncodeToString([]byte(key))
}

func pullNodeID(r *repo, number int64) string {
	return nodeID("PR", fmt.Sprintf("%s/%s#%d", strings.ToLower(r.owner), strings.ToLower(r.name), number))
}

func stamp(t time.Time) string { return t.Format(time.RFC3339) }

func nullTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := stamp(t)
	return &s
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
