package gitops

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/google/go-github/v60/github"
)

// With RunOptions.SignedCommits a commit is not pushed: it is made again
// through GitHub's Git Data API (a tree, a commit, a ref), which GitHub
// authors as the token's bot and signs, so that it shows as Verified and
// passes branch protection's "require signed commits". The tree GitHub
// builds must hash to the tree built here, so the branch holds exactly the
// bytes a push would have; the commit differs only in author, date and
// signature.
//
// Unlike a push, the commit is not left in the run's repository, and it is
// not fetched back: nothing later in the run reads the branch again (a
// group's branch is looked at once, before it is committed to), the next
// run fetches every branch afresh, and the tracking ref left at the leased
// tip could only make a later move of the branch fail its lease, never
// overwrite anything.

// publish puts the commit built here on branch, by push or through the
// API, leased against the tip the run fetched: a branch that moved since
// is never overwritten.
func (r *runner) publish(ctx context.Context, branch string, commit plumbing.Hash, leased *object.Commit) (already bool, err error) {
	if !r.o.SignedCommits {
		return r.rm.push(ctx, branch, commit, leased)
	}
	return false, r.commitViaAPI(ctx, branch, commit, leased)
}

// commitViaAPI makes the commit built here again on GitHub: its changed
// files as a tree on its parent's, a commit of that tree without any
// identity, and the branch moved to it.
func (r *runner) commitViaAPI(ctx context.Context, branch string, local plumbing.Hash, leased *object.Commit) error {
	c, err := r.rm.repo.CommitObject(local)
	if err != nil {
		return err
	}
	if len(c.ParentHashes) != 1 {
		return fmt.Errorf("commit %s: want one parent", local)
	}
	parent, err := c.Parent(0)
	if err != nil {
		return err
	}
	entries, err := r.treeEntries(ctx, parent, c)
	if err != nil {
		return err
	}
	tree, _, err := r.h.gh.Git.CreateTree(ctx, r.h.owner, r.h.name, parent.TreeHash.String(), entries)
	if err != nil {
		return fmt.Errorf("create tree for %s: %w", branch, err)
	}
	if tree.GetSHA() != c.TreeHash.String() {
		return fmt.Errorf("create tree for %s: GitHub made tree %s, not %s: the files would differ from the plan's, so nothing is committed", branch, tree.GetSHA(), c.TreeHash)
	}
	// No author, committer or signature: GitHub signs only the commits
	// whose identity it writes itself.
	made, _, err := r.h.gh.Git.CreateCommit(ctx, r.h.owner, r.h.name, &github.Commit{
		Message: &c.Message,
		Tree:    &github.Tree{SHA: tree.SHA},
		Parents: []*github.Commit{{SHA: github.String(parent.Hash.String())}},
	}, nil)
	if err != nil {
		return fmt.Errorf("create commit for %s: %w", branch, err)
	}
	r.checkAPICommit(made)
	if err := r.h.moveBranch(ctx, branch, made.GetSHA(), leased); err != nil {
		return err
	}
	r.log.Debug("committed through the API", "branch", branch, "commit", made.GetSHA(), "verified", made.GetVerification().GetVerified())
	return nil
}

// treeEntries are the files c changes from parent, inline when they are
// text (one request for the tree), else as blobs made first.
func (r *runner) treeEntries(ctx context.Context, parent, c *object.Commit) ([]*github.TreeEntry, error) {
	from, err := parent.Tree()
	if err != nil {
		return nil, err
	}
	to, err := c.Tree()
	if err != nil {
		return nil, err
	}
	changes, err := object.DiffTree(from, to)
	if err != nil {
		return nil, err
	}
	var entries []*github.TreeEntry
	for _, ch := range changes {
		if ch.To.Name == "" {
			return nil, fmt.Errorf("commit %s deletes %s: not supported through the API", c.Hash, ch.From.Name)
		}
		content, err := readBlob(r.rm.repo.Storer, ch.To.TreeEntry.Hash)
		if err != nil {
			return nil, err
		}
		e := &github.TreeEntry{Path: github.String(ch.To.Name), Mode: github.String(fmt.Sprintf("%06o", uint32(ch.To.TreeEntry.Mode))), Type: github.String("blob")}
		if utf8.Valid(content) {
			e.Content = github.String(string(content))
		} else {
			made, _, err := r.h.gh.Git.CreateBlob(ctx, r.h.owner, r.h.name, &github.Blob{
				Content: github.String(base64.StdEncoding.EncodeToString(content)), Encoding: github.String("base64"),
			})
			if err != nil {
				return nil, fmt.Errorf("create blob %s: %w", ch.To.Name, err)
			}
			e.SHA = made.SHA
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// readBlob reads the content of the blob hash.
func readBlob(objs storer.EncodedObjectStorer, hash plumbing.Hash) ([]byte, error) {
	b, err := object.GetBlob(objs, hash)
	if err != nil {
		return nil, err
	}
	rd, err := b.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	return io.ReadAll(rd)
}

// moveBranch points branch at sha, leased against the tip the run
// fetched. GitHub's ref update takes no expected old value, so the tip is
// compared first: the window between the two requests is all that is
// left of a lease, where a push's is closed by receive-pack.
func (h *hub) moveBranch(ctx context.Context, branch, sha string, leased *object.Commit) error {
	if leased == nil {
		_, _, err := h.gh.Git.CreateRef(ctx, h.owner, h.name, &github.Reference{
			Ref: github.String("refs/heads/" + branch), Object: &github.GitObject{SHA: &sha},
		})
		if err != nil {
			return fmt.Errorf("push %s: create branch: %w", branch, err)
		}
		return nil
	}
	now, _, err := h.gh.Git.GetRef(ctx, h.owner, h.name, "heads/"+branch)
	switch {
	case status(err) == http.StatusNotFound:
		return fmt.Errorf("push %s: the branch is gone", branch)
	case err != nil:
		return fmt.Errorf("push %s: %w", branch, err)
	case now.GetObject().GetSHA() != leased.Hash.String():
		return fmt.Errorf("push %s: the branch is at %s, not at %s as fetched", branch, now.GetObject().GetSHA(), leased.Hash)
	}
	// Forced: the new commit is on the default branch's tip, not on the
	// branch's old commit.
	if _, _, err := h.gh.Git.UpdateRef(ctx, h.owner, h.name, &github.Reference{
		Ref: github.String("refs/heads/" + branch), Object: &github.GitObject{SHA: &sha},
	}, true); err != nil {
		return fmt.Errorf("push %s: update branch: %w", branch, err)
	}
	return nil
}

func status(err error) int {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode
	}
	return 0
}

// checkAPICommit says once what GitHub did differently than expected:
// signed nothing (branch protection will refuse the commit), or wrote
// another author than the run recognises as itself, which it then does.
func (r *runner) checkAPICommit(c *github.Commit) {
	if v := c.GetVerification(); !v.GetVerified() && !r.warnedUnsigned {
		r.warnedUnsigned = true
		r.log.Warn("GitHub did not sign the commit it made: branch protection that requires signed commits refuses it; GitHub signs those of GitHub Apps and of GITHUB_TOKEN", "reason", v.GetReason())
	}
	if a := c.GetAuthor(); a.GetEmail() != "" && a.GetEmail() != r.apiAuthor.Email {
		r.log.Warn("GitHub made the commit as someone else than expected; recognising it as imagebot's for this run", "author", a.GetName()+" <"+a.GetEmail()+">", "expected", r.apiAuthor.Email)
		r.apiAuthor = object.Signature{Name: a.GetName(), Email: a.GetEmail()}
	}
}

// actionsBot is the user GITHUB_TOKEN acts as on github.com.
const (
	actionsBot   = "github-actions[bot]"
	actionsBotID = 41898282
)

// useAPIAuthor learns who GitHub makes the author of the commits this
// run creates through the API, so that the run knows them for its own
// (runner.ours): a GitHub App's bot, github-actions[bot] for GITHUB_TOKEN,
// or the person a personal token belongs to.
func (r *runner) useAPIAuthor(ctx context.Context) error {
	login, id := "", int64(0)
	if app, ok := r.h.creds.(*appCredentials); ok {
		a, _, err := app.asApp().Apps.Get(ctx, "")
		if err != nil {
			return fmt.Errorf("get the GitHub App, to know its commits: %w", err)
		}
		login = a.GetSlug() + "[bot]"
		u, _, err := r.h.gh.Users.Get(ctx, login)
		if err != nil {
			return fmt.Errorf("get the GitHub App's bot user %s: %w", login, err)
		}
		id = u.GetID()
	} else {
		u, _, err := r.h.gh.Users.Get(ctx, "")
		switch {
		case status(err) == http.StatusForbidden:
			// An installation token cannot ask who it is; GITHUB_TOKEN
			// is github-actions[bot]'s. Another App's token passed as
			// GITHUB_TOKEN is recognised after its first commit.
			login, id = actionsBot, actionsBotID
		case err != nil:
			return fmt.Errorf("get the token's user, to know its commits: %w", err)
		default:
			login, id = u.GetLogin(), u.GetID()
			r.log.Warn("git.signedCommits: api with a personal token: GitHub signs the API commits of GitHub Apps and GITHUB_TOKEN", "user", login)
		}
	}
	r.apiAuthor = object.Signature{Name: login, Email: fmt.Sprintf("%d+%s@users.noreply.github.com", id, login)}
	r.log.Debug("commits through the API are made as", "author", r.apiAuthor.Email)
	return nil
}

// madeBy reports whether c was authored and committed as email.
func madeBy(c *object.Commit, email string) bool {
	return email != "" && c.Author.Email == email && c.Committer.Email == email
}

// webFlow is the committer of the commits GitHub makes on a user's behalf
// in its web editor.
const webFlow = "noreply@github.com"

// madeThroughAPI reports whether c is one the run's credentials made
// through the API: authored by the bot, and committed by it (what
// go-github documents for a commit without committer) or by GitHub's
// web-flow, which commits its web editor's changes.
func (r *runner) madeThroughAPI(c *object.Commit) bool {
	return r.apiAuthor.Email != "" && c.Author.Email == r.apiAuthor.Email &&
		(c.Committer.Email == r.apiAuthor.Email || c.Committer.Email == webFlow)
}
