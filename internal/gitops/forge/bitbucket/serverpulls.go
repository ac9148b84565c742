package bitbucket

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/imagebot/imagebot/internal/gitops/forge"
)

type dcRefJSON struct {
	ID         string `json:"id"`
	DisplayID  string `json:"displayId"`
	Repository struct {
		Slug    string `json:"slug"`
		Project struct {
			Key string `json:"key"`
		} `json:"project"`
	} `json:"repository"`
}

type dcUser struct {
	User struct {
		Name string `json:"name"`
	} `json:"user"`
}

type dcPR struct {
	ID          int       `json:"id"`
	Version     int       `json:"version"`
	Title       string    `json:"title"`
	Description string    `json:"description"`
	State       string    `json:"state"` // OPEN, DECLINED, MERGED
	Author      dcUser    `json:"author"`
	FromRef     dcRefJSON `json:"fromRef"`
	ToRef       dcRefJSON `json:"toRef"`
	Reviewers   []dcUser  `json:"reviewers"`
	Created     int64     `json:"createdDate"` // ms
	Links       struct {
		Self []struct {
			Href string `json:"href"`
		} `json:"self"`
	} `json:"links"`
}

// change is pr as the lifecycle reads it, and its version kept for the
// next write (Data Center locks writes by version).
func (s *server) change(pr *dcPR) *forge.Change {
	s.mu.Lock()
	s.versions[pr.ID] = pr.Version
	s.mu.Unlock()
	c := &forge.Change{Number: pr.ID, Title: pr.Title, Body: pr.Description, Author: pr.Author.User.Name,
		Head: pr.FromRef.DisplayID, Base: pr.ToRef.DisplayID, State: "closed", Merged: pr.State == "MERGED",
		Created: time.UnixMilli(pr.Created).UTC(),
		OwnBranch: strings.EqualFold(pr.FromRef.Repository.Project.Key, pr.ToRef.Repository.Project.Key) &&
			pr.FromRef.Repository.Slug == pr.ToRef.Repository.Slug}
	if pr.State == "OPEN" {
		c.State = "open"
	}
	if len(pr.Links.Self) > 0 {
		c.URL = pr.Links.Self[0].Href
	}
	return c
}

// dcPulls lists the pull requests q keeps, oldest first: Data Center
// filters by state, and by one branch (at, OUTGOING); the rest is read
// here.
func (s *server) dcPulls(ctx context.Context, q forge.Query, order string, limit int, each func(*dcPR) bool) error {
	state := map[string]string{"open": "OPEN", "closed": "ALL", "": "ALL", "all": "ALL"}[q.State]
	query := url.Values{"state": {state}, "order": {order}}
	if q.Head != "" {
		query.Set("at", "refs/heads/"+q.Head)
		query.Set("direction", "OUTGOING")
	}
	what := "list " + strings.ToLower(state) + " pull requests"
	return s.dcList(ctx, what, s.repoPath("pull-requests"), query, limit, func(values []json.RawMessage) (bool, error) {
		for _, raw := range values {
			var pr dcPR
			if err := json.Unmarshal(raw, &pr); err != nil {
				return false, err
			}
			if q.Keeps(s.change(&pr)) && !each(&pr) {
				return false, nil
			}
		}
		return true, nil
	})
}

func (s *server) Changes(ctx context.Context, q forge.Query) ([]*forge.Change, error) {
	var out []*forge.Change
	err := s.dcPulls(ctx, q, "OLDEST", 0, func(pr *dcPR) bool {
		out = append(out, s.change(pr))
		return true
	})
	return out, err
}

// ClosedChanges is one listing of every pull request, the closed ones of
// branches kept (Data Center's state filter takes one state: DECLINED and
// MERGED would be two listings).
func (s *server) ClosedChanges(ctx context.Context, by forge.Query, branches []string) (map[string][]*forge.Change, error) {
	out := map[string][]*forge.Change{}
	if len(branches) == 0 {
		return out, nil
	}
	err := s.dcPulls(ctx, forge.Query{State: "closed", Base: by.Base, Author: by.Author}, "OLDEST", 0, func(pr *dcPR) bool {
		if c := s.change(pr); slices.Contains(branches, c.Head) {
			out[c.Head] = append(out[c.Head], c)
		}
		return true
	})
	return out, err
}

// RecentChanges reads the newest first until an older one.
func (s *server) RecentChanges(ctx context.Context, since time.Time) ([]*forge.Change, error) {
	var out []*forge.Change
	err := s.dcPulls(ctx, forge.Query{State: "all", Prefix: ""}, "NEWEST", forge.RecentPages, func(pr *dcPR) bool {
		c := s.change(pr)
		if c.Created.Before(since) {
			return false
		}
		out = append(out, c)
		return true
	})
	return out, err
}

func (s *server) ref(branch string) map[string]any {
	return map[string]any{"id": "refs/heads/" + branch,
		"repository": map[string]any{"slug": s.slug, "project": map[string]any{"key": s.project}}}
}

// CreateChange opens a pull request; Data Center adds the default
// reviewers itself. A duplicate's 409 carries the open one, returned.
func (s *server) CreateChange(ctx context.Context, c forge.NewChange) (*forge.Change, bool, error) {
	body := map[string]any{"title": c.Title, "description": c.Body, "fromRef": s.ref(c.Head), "toRef": s.ref(c.Base), "draft": c.Draft}
	var pr dcPR
	err := s.api.do(ctx, http.MethodPost, s.repoPath("pull-requests"), nil, body, &pr)
	if err == nil {
		return s.change(&pr), true, nil
	}
	var dup *dcError
	if errors.As(err, &dup) && dup.Status == http.StatusConflict && json.Unmarshal(dup.existing, &pr) == nil && pr.ID != 0 {
		return s.change(&pr), false, nil
	}
	return nil, false, fmt.Errorf("open pull request for %s: %w", c.Head, err)
}

// pr reads pull request n (its reviewers and version).
func (s *server) pr(ctx context.Context, n int) (*dcPR, error) {
	var pr dcPR
	if err := s.api.do(ctx, http.MethodGet, s.repoPath("pull-requests", fmt.Sprint(n)), nil, nil, &pr); err != nil {
		return nil, err
	}
	s.change(&pr)
	return &pr, nil
}

// EditChange updates title and body at the version last read (a 409 for a
// stale one reads the pull request again and retries once), then declines
// when asked to close.
func (s *server) EditChange(ctx context.Context, n int, e forge.ChangeEdit) error {
	if e.Title != nil || e.Body != nil {
		err := s.withVersion(ctx, n, func(version int) error {
			fields := map[string]any{"version": version}
			if e.Title != nil {
				fields["title"] = *e.Title
			}
			if e.Body != nil {
				fields["description"] = *e.Body
			}
			var pr dcPR
			if err := s.api.do(ctx, http.MethodPut, s.repoPath("pull-requests", fmt.Sprint(n)), nil, fields, &pr); err != nil {
				return err
			}
			s.change(&pr)
			return nil
		})
		if err != nil {
			return fmt.Errorf("edit pull request #%d: %w", n, err)
		}
	}
	if e.Close {
		err := s.withVersion(ctx, n, func(version int) error {
			q := url.Values{"version": {fmt.Sprint(version)}}
			var pr dcPR
			if err := s.api.do(ctx, http.MethodPost, s.repoPath("pull-requests", fmt.Sprint(n), "decline"), q, map[string]any{}, &pr); err != nil {
				return err
			}
			s.change(&pr)
			return nil
		})
		if err != nil {
			return fmt.Errorf("decline pull request #%d: %w", n, err)
		}
	}
	return nil
}

// withVersion calls write with the version last read of n (reading it
// when unknown), and once more after a stale version's 409.
func (s *server) withVersion(ctx context.Context, n int, write func(version int) error) error {
	s.mu.Lock()
	v, known := s.versions[n]
	s.mu.Unlock()
	if !known {
		pr, err := s.pr(ctx, n)
		if err != nil {
			return err
		}
		v = pr.Version
	}
	err := write(v)
	if status(err) != http.StatusConflict {
		return err
	}
	pr, rerr := s.pr(ctx, n)
	if rerr != nil {
		return err
	}
	return write(pr.Version)
}

// RequestReviewers adds users by name (groups are not reviewers on Data
// Center: a "PROJECT/group" is left out with a warning).
func (s *server) RequestReviewers(ctx context.Context, n int, reviewers []string) error {
	pr, err := s.pr(ctx, n)
	if err != nil {
		return fmt.Errorf("request reviewers on #%d: %w", n, err)
	}
	var names []string
	for _, r := range pr.Reviewers {
		names = append(names, r.User.Name)
	}
	for _, r := range reviewers {
		if strings.Contains(r, "/") {
			s.cfg.Logger.Warn("Bitbucket Data Center takes no group reviewers: name people", "reviewer", r, "number", n)
			continue
		}
		if !slices.Contains(names, r) && r != pr.Author.User.Name {
			names = append(names, r)
		}
	}
	var list []map[string]any
	for _, name := range names {
		list = append(list, map[string]any{"user": map[string]string{"name": name}})
	}
	err = s.withVersion(ctx, n, func(version int) error {
		return s.api.do(ctx, http.MethodPut, s.repoPath("pull-requests", fmt.Sprint(n)), nil,
			map[string]any{"version": version, "title": pr.Title, "reviewers": list}, nil)
	})
	if err != nil {
		return fmt.Errorf("request reviewers on #%d: %w", n, err)
	}
	return nil
}

// EnableAutoMerge asks Data Center (8.15 and later) to merge the pull
// request when its builds and merge checks pass.
func (s *server) EnableAutoMerge(ctx context.Context, c *forge.Change) error {
	if err := s.api.do(ctx, http.MethodPost, s.repoPath("pull-requests", fmt.Sprint(c.Number), "auto-merge"), nil, nil, nil); err != nil {
		return fmt.Errorf("enable auto-merge of #%d: %w", c.Number, err)
	}
	return nil
}

func (s *server) Comment(ctx context.Context, n int, text string) error {
	if err := s.api.do(ctx, http.MethodPost, s.repoPath("pull-requests", fmt.Sprint(n), "comments"), nil, map[string]string{"text": text}, nil); err != nil {
		return fmt.Errorf("comment on #%d: %w", n, err)
	}
	return nil
}

// Commented reads the pull request's activities for a comment by an
// account by accepts that contains mark.
func (s *server) Commented(ctx context.Context, n int, mark string, by func(string) bool) (bool, error) {
	found := false
	err := s.dcList(ctx, fmt.Sprintf("list comments of #%d", n), s.repoPath("pull-requests", fmt.Sprint(n), "activities"), nil, maxCommentPages,
		func(values []json.RawMessage) (bool, error) {
			for _, raw := range values {
				var a struct {
					Action  string `json:"action"`
					Comment struct {
						Text   string `json:"text"`
						Author struct {
							Name string `json:"name"`
						} `json:"author"`
					} `json:"comment"`
				}
				if err := json.Unmarshal(raw, &a); err != nil {
					return false, err
				}
				if a.Action == "COMMENTED" && strings.Contains(a.Comment.Text, mark) && by(a.Comment.Author.Name) {
					found = true
					return false, nil
				}
			}
			return true, nil
		})
	return found, err
}

// DeleteBranch deletes through the branch-utils API.
func (s *server) DeleteBranch(ctx context.Context, branch string) error {
	ref := path("branch-utils", "1.0", "projects", s.project, "repos", s.slug, "branches")
	if err := s.api.do(ctx, http.MethodDelete, ref, nil, map[string]any{"name": "refs/heads/" + branch, "dryRun": false}, nil); err != nil {
		return fmt.Errorf("delete branch %s: %w", branch, err)
	}
	return nil
}

// Statuses reads the build statuses of ref by key: SUCCESSFUL, FAILED,
// INPROGRESS in rollout's words.
func (s *server) Statuses(ctx context.Context, ref string) (map[string]string, error) {
	out := map[string]string{}
	err := s.dcList(ctx, "statuses of "+ref, path("build-status", "1.0", "commits", ref), nil, forge.StatusPages,
		func(values []json.RawMessage) (bool, error) {
			for _, raw := range values {
				var st bbStatus
				if err := json.Unmarshal(raw, &st); err != nil {
					return false, err
				}
				addStatus(out, st)
			}
			return true, nil
		})
	if err != nil {
		return nil, err
	}
	return out, nil
}
