package github

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"unicode/utf8"

	"github.com/google/go-github/v60/github"

	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// actionsBot is the user GITHUB_TOKEN acts as on github.com.
const (
	actionsBot   = "github-actions[bot]"
	actionsBotID = 41898282
)

// APIAuthor is who GitHub makes the author of the commits the Git Data
// API creates: a GitHub App's bot, github-actions[bot] for GITHUB_TOKEN,
// or the person a personal token belongs to, as GitHub's noreply address.
func (h *hub) APIAuthor(ctx context.Context) (name, email string, personal bool, err error) {
	login, id := "", int64(0)
	if _, ok := h.creds.(*appCredentials); ok {
		// The App's bot, as WhoAmI knows it once a run.
		self, err := h.WhoAmI(ctx)
		if err != nil {
			return "", "", false, err
		}
		login = self.Login
		u, _, err := h.gh.Users.Get(ctx, login)
		if err != nil {
			return "", "", false, fmt.Errorf("get the GitHub App's bot user %s: %w", login, ghErr(err))
		}
		id = u.GetID()
	} else if self, err := h.WhoAmI(ctx); err == nil && self.Assumed {
		// An installation token (WhoAmI): GITHUB_TOKEN's is
		// github-actions[bot]'s.
		login, id = actionsBot, actionsBotID
	} else {
		u, _, err := h.gh.Users.Get(ctx, "")
		switch {
		case status(err) == http.StatusForbidden:
			// An installation token cannot ask who it is; GITHUB_TOKEN
			// is github-actions[bot]'s. Another App's token passed as
			// GITHUB_TOKEN is recognised after its first commit.
			login, id = actionsBot, actionsBotID
		case err != nil:
			return "", "", false, fmt.Errorf("get the token's user, to know its commits: %w", ghErr(err))
		default:
			login, id, personal = u.GetLogin(), u.GetID(), true
		}
	}
	return login, fmt.Sprintf("%d+%s@users.noreply.github.com", id, login), personal, nil
}

// CreateTree puts files on the tree base: text inline (one request for
// the tree), anything else as a blob made first.
func (h *hub) CreateTree(ctx context.Context, base string, files []forge.TreeFile) (string, error) {
	var entries []*github.TreeEntry
	for _, f := range files {
		e := &github.TreeEntry{Path: github.String(f.Path), Mode: github.String(fmt.Sprintf("%06o", f.Mode)), Type: github.String("blob")}
		if utf8.Valid(f.Content) {
			e.Content = github.String(string(f.Content))
		} else {
			made, _, err := h.gh.Git.CreateBlob(ctx, h.owner, h.name, &github.Blob{
				Content: github.String(base64.StdEncoding.EncodeToString(f.Content)), Encoding: github.String("base64"),
			})
			if err != nil {
				return "", fmt.Errorf("create blob %s: %w", f.Path, ghErr(err))
			}
			e.SHA = made.SHA
		}
		entries = append(entries, e)
	}
	tree, _, err := h.gh.Git.CreateTree(ctx, h.owner, h.name, base, entries)
	if err != nil {
		return "", ghErr(err)
	}
	return tree.GetSHA(), nil
}

// CreateCommit makes the commit with no author, committer or signature:
// GitHub signs only the commits whose identity it writes itself.
func (h *hub) CreateCommit(ctx context.Context, message, tree, parent string) (forge.APICommit, error) {
	made, _, err := h.gh.Git.CreateCommit(ctx, h.owner, h.name, &github.Commit{
		Message: &message,
		Tree:    &github.Tree{SHA: &tree},
		Parents: []*github.Commit{{SHA: &parent}},
	}, nil)
	if err != nil {
		return forge.APICommit{}, ghErr(err)
	}
	v, a := made.GetVerification(), made.GetAuthor()
	return forge.APICommit{SHA: made.GetSHA(), Verified: v.GetVerified(), Reason: v.GetReason(), AuthorName: a.GetName(), Email: a.GetEmail()}, nil
}

// MoveBranch points branch at sha, leased against the tip the run
// fetched. GitHub's ref update takes no expected old value, so the tip is
// compared first: the window between the two requests is all that is
// left of a lease, where a push's is closed by receive-pack.
func (h *hub) MoveBranch(ctx context.Context, branch, sha, leased string) error {
	if leased == "" {
		_, _, err := h.gh.Git.CreateRef(ctx, h.owner, h.name, &github.Reference{
			Ref: github.String("refs/heads/" + branch), Object: &github.GitObject{SHA: &sha},
		})
		if err != nil {
			return fmt.Errorf("push %s: create branch: %w", branch, ghErr(err))
		}
		return nil
	}
	now, _, err := h.gh.Git.GetRef(ctx, h.owner, h.name, "heads/"+branch)
	switch {
	case status(err) == http.StatusNotFound:
		return fmt.Errorf("push %s: the branch is gone", branch)
	case err != nil:
		return fmt.Errorf("push %s: %w", branch, ghErr(err))
	case now.GetObject().GetSHA() != leased:
		return fmt.Errorf("push %s: the branch is at %s, not at %s as fetched", branch, now.GetObject().GetSHA(), leased)
	}
	// Forced: the new commit is on the default branch's tip, not on the
	// branch's old commit.
	if _, _, err := h.gh.Git.UpdateRef(ctx, h.owner, h.name, &github.Reference{
		Ref: github.String("refs/heads/" + branch), Object: &github.GitObject{SHA: &sha},
	}, true); err != nil {
		return fmt.Errorf("push %s: update branch: %w", branch, ghErr(err))
	}
	return nil
}
