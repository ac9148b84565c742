package main

import (
	"context"
	"os"
	"path/filepath"
	"time"

	git "github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing/object"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/imagebot/imagebot/fixtures"
	"github.com/imagebot/imagebot/internal/testing/githubtest"
)

// demoHistory pushes the demo repository's later commits onto main, dated
// in the past as a person made them, and posts Flux's statuses on them:
// staging's version has soaked by the time the demo runs.
func demoHistory(ctx context.Context, dir, url string, gh *githubtest.Server, steps []fixtures.DemoStep) error {
	auth := &githttp.BasicAuth{Username: "x-access-token", Password: demoToken}
	repo, err := git.PlainCloneContext(ctx, dir, false, &git.CloneOptions{URL: url, Auth: auth})
	if err != nil {
		return err
	}
	wt, err := repo.Worktree()
	if err != nil {
		return err
	}
	for _, st := range steps {
		for f, b := range st.Files {
			p := filepath.Join(dir, filepath.FromSlash(f))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				return err
			}
			if _, err := wt.Add(f); err != nil {
				return err
			}
		}
		who := &object.Signature{Name: "Jane Doe", Email: "jane@acme.example", When: time.Now().Add(-st.Ago)}
		h, err := wt.Commit(st.Message, &git.CommitOptions{Author: who, Committer: who})
		if err != nil {
			return err
		}
		for ctxName, state := range st.Statuses {
			if err := gh.PostStatus("acme", "gitops", h.String(), ctxName, state); err != nil {
				return err
			}
		}
	}
	return repo.PushContext(ctx, &git.PushOptions{Auth: auth, RefSpecs: []gitconfig.RefSpec{"refs/heads/main:refs/heads/main"}})
}
