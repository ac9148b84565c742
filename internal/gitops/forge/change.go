package forge

import (
	"strings"
	"time"
)

// Repository is what a run reads of the repository itself.
type Repository struct {
	DefaultBranch string
	// URL is its web page ("https://github.com/o/r"), for links.
	URL string
	// Push says the token may push to it; Known is false when the host
	// did not say (a GitHub App's token is not told).
	Push, Known bool
}

// Identity is the login the bot's change requests and comments are made
// as. Assumed is true when the host would not say (a GitHub installation
// token cannot ask who it is) and a likely one is taken.
type Identity struct {
	Login   string
	Assumed bool
}

// Change is a change request as the lifecycle reads it: a pull request
// on GitHub and Gitea, a merge request on GitLab.
type Change struct {
	Number int
	ID     string // the host's global id, where an API needs it (GitHub's node ID)
	URL    string // its web page
	Title  string
	Body   string
	Author string // its author's login
	// Head is its source branch; OwnBranch says it is in the repository
	// itself, not in a fork: only writers can push there. Base is the
	// branch it merges into.
	Head      string
	OwnBranch bool
	Base      string
	State     string // "open" or "closed" (a merged one is closed too)
	Merged    bool
	Labels    []string
	// Created is when it was opened, as the host says (zero when it does
	// not): what pullRequests.perHour counts.
	Created time.Time
}

// Query says which change requests a listing keeps: always those from
// the repository's own branches (only writers can push there), never a
// fork's.
type Query struct {
	State  string // "open", "closed" or "all"
	Head   string // the head branch, exactly; "" for any
	Prefix string // the head branch's prefix, when Head is ""
	Base   string // the branch it would merge into; "" for any
	// Author is the login that opened it; "" for anyone. The host's
	// filter is case-insensitive, as logins are.
	Author string
}

// Keeps reports whether q keeps c: what a host could not filter by is
// checked here, page by page.
func (q Query) Keeps(c *Change) bool {
	switch {
	case !c.OwnBranch,
		q.State == "open" && c.State != "open",
		q.State == "closed" && c.State != "closed",
		q.Head != "" && c.Head != q.Head,
		q.Head == "" && !strings.HasPrefix(c.Head, q.Prefix),
		q.Base != "" && c.Base != q.Base,
		q.Author != "" && !strings.EqualFold(c.Author, q.Author):
		return false
	}
	return true
}

// NewChange is a change request to open.
type NewChange struct {
	Title, Body, Head, Base string
	Draft                   bool
}

// ChangeEdit is a change to a change request: nil fields are left alone.
type ChangeEdit struct {
	Title, Body *string
	Close       bool
}

// Issue is an issue as the dashboard reads it.
type Issue struct {
	Number  int
	URL     string
	Title   string
	Body    string
	Author  string
	Labels  []string
	Created time.Time
}

// TreeFile is one file of a tree made through the API.
type TreeFile struct {
	Path    string
	Mode    uint32 // git's: 0100644, 0100755
	Content []byte
}

// APICommit is a commit a host made (SignedCommits.CreateCommit).
type APICommit struct {
	SHA               string
	Verified          bool
	Reason            string // why it is not verified
	AuthorName, Email string
}
