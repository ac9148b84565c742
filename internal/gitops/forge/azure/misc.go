package azure

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// Comment starts a comment thread on a pull request.
func (a *ado) Comment(ctx context.Context, n int, text string) error {
	in := map[string]any{"comments": []map[string]any{{"parentCommentId": 0, "content": text, "commentType": 1}}, "status": 1}
	if _, err := a.c.do(ctx, "POST", a.c.base, a.repoPath+"/pullrequests/"+strconv.Itoa(n)+"/threads", nil, in, nil); err != nil {
		return fmt.Errorf("comment on !%d: %w", n, err)
	}
	return nil
}

// Commented reads a pull request's threads, which Azure DevOps returns
// whole, in one answer.
func (a *ado) Commented(ctx context.Context, n int, mark string, by func(login string) bool) (bool, error) {
	var threads struct {
		Value []struct {
			Comments []struct {
				Content string `json:"content"`
				Author  struct {
					UniqueName string `json:"uniqueName"`
				} `json:"author"`
			} `json:"comments"`
		} `json:"value"`
	}
	if _, err := a.c.do(ctx, "GET", a.c.base, a.repoPath+"/pullrequests/"+strconv.Itoa(n)+"/threads", nil, nil, &threads); err != nil {
		return false, fmt.Errorf("list comments of !%d: %w", n, err)
	}
	for _, t := range threads.Value {
		for _, c := range t.Comments {
			if strings.Contains(c.Content, mark) && by(c.Author.UniqueName) {
				return true, nil
			}
		}
	}
	return false, nil
}

type ref struct {
	Name     string `json:"name"`
	ObjectID string `json:"objectId"`
}

// DeleteBranch deletes a branch: Azure DevOps updates refs from their
// current commit, so the branch's is read first (refs by filter, a
// prefix, paged by continuation token) and the update is refused if it
// moved in between.
func (a *ado) DeleteBranch(ctx context.Context, branch string) error {
	name := "refs/heads/" + branch
	var cur string
	v := url.Values{"filter": {"heads/" + branch}}
	err := forge.TokenPages("list refs heads/"+branch, 0, func(token string) (string, error) {
		if token != "" {
			v.Set("continuationToken", token)
		}
		var page struct {
			Value []ref `json:"value"`
		}
		h, err := a.c.do(ctx, "GET", a.c.base, a.repoPath+"/refs", v, nil, &page)
		if err != nil {
			return "", err
		}
		for _, r := range page.Value {
			if r.Name == name {
				cur = r.ObjectID
				return "", nil
			}
		}
		return h.Get("x-ms-continuationtoken"), nil
	})
	if err != nil {
		return fmt.Errorf("delete branch %s: %w", branch, err)
	}
	if cur == "" {
		return fmt.Errorf("delete branch %s: %w", branch, forge.ErrNotFound)
	}
	in := []map[string]string{{"name": name, "oldObjectId": cur, "newObjectId": strings.Repeat("0", 40)}}
	var out struct {
		Value []struct {
			Success      bool   `json:"success"`
			UpdateStatus string `json:"updateStatus"`
		} `json:"value"`
	}
	if _, err := a.c.do(ctx, "POST", a.c.base, a.repoPath+"/refs", nil, in, &out); err != nil {
		return fmt.Errorf("delete branch %s: %w", branch, err)
	}
	if len(out.Value) != 1 || !out.Value[0].Success {
		st := "no answer"
		if len(out.Value) == 1 {
			st = out.Value[0].UpdateStatus
		}
		return fmt.Errorf("delete branch %s: %s", branch, st)
	}
	return nil
}

// states are Azure DevOps' commit status states as rollout reads them.
var states = map[string]string{"succeeded": "success", "failed": "failure", "error": "error",
	"pending": "pending", "notSet": "pending", "notApplicable": "success"}

// Statuses is each context's newest state (latestOnly), named
// "genre/name" ("name" without a genre), a page of 100 at a time.
func (a *ado) Statuses(ctx context.Context, sha string) (map[string]string, error) {
	out := map[string]string{}
	v := url.Values{"latestOnly": {"true"}, "$top": {strconv.Itoa(perPage)}}
	err := forge.Pages("list statuses of "+sha, forge.StatusPages, func(n int) (int, error) {
		v.Set("$skip", strconv.Itoa((n-1)*perPage))
		var page struct {
			Value []struct {
				State   string `json:"state"`
				Context struct {
					Name  string `json:"name"`
					Genre string `json:"genre"`
				} `json:"context"`
			} `json:"value"`
		}
		if _, err := a.c.do(ctx, "GET", a.c.base, a.repoPath+"/commits/"+seg(sha)+"/statuses", v, nil, &page); err != nil {
			return 0, fmt.Errorf("list statuses of %s: %w", sha, err)
		}
		for _, s := range page.Value {
			name := s.Context.Name
			if s.Context.Genre != "" {
				name = s.Context.Genre + "/" + name
			}
			st, ok := states[s.State]
			if !ok {
				st = s.State
			}
			if prev, seen := out[name]; seen && prev != "success" {
				continue // reported twice: successful only if both are
			}
			out[name] = st
		}
		if len(page.Value) < perPage {
			return 0, nil
		}
		return n + 1, nil
	})
	return out, err
}

// RequestReviewers adds reviewers, each looked up by name through the
// identities API: a person by sign-in name, a team by "[Project]\Team"
// or "Project/Team".
func (a *ado) RequestReviewers(ctx context.Context, n int, reviewers []string) error {
	for _, r := range reviewers {
		name := r
		if p, t, ok := strings.Cut(r, "/"); ok && !strings.Contains(r, "@") {
			name = "[" + p + "]\\" + t
		}
		var found struct {
			Value []identity `json:"value"`
		}
		v := url.Values{"searchFilter": {"General"}, "filterValue": {name}, "queryMembership": {"None"}}
		if _, err := a.c.do(ctx, "GET", a.identitiesURL, "/_apis/identities", v, nil, &found); err != nil {
			return fmt.Errorf("find reviewer %q: %w", r, err)
		}
		if len(found.Value) != 1 {
			return fmt.Errorf("find reviewer %q: %d identities by that name, want one", r, len(found.Value))
		}
		path := a.repoPath + "/pullrequests/" + strconv.Itoa(n) + "/reviewers/" + seg(found.Value[0].ID)
		if _, err := a.c.do(ctx, "PUT", a.c.base, path, nil, map[string]any{"vote": 0}, nil); err != nil {
			return fmt.Errorf("add reviewer %q to !%d: %w", r, n, err)
		}
	}
	return nil
}
