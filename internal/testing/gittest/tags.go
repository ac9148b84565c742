package gittest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Tag tags the default branch's tip of owner/name: an annotated tag when
// annotated (its advertisement then carries the peeled commit), else a
// lightweight one. It returns the commit tagged.
func (s *Server) Tag(owner, name, tag string, annotated bool) (string, error) {
	repo, err := git.PlainOpen(s.Dir(owner, name))
	if err != nil {
		return "", fmt.Errorf("tag %s/%s: %w", owner, name, err)
	}
	head, err := repo.Head()
	if err != nil {
		return "", fmt.Errorf("tag %s/%s: %w", owner, name, err)
	}
	if !annotated {
		err = repo.Storer.SetReference(plumbing.NewHashReference(plumbing.NewTagReferenceName(tag), head.Hash()))
	} else {
		_, err = repo.CreateTag(tag, head.Hash(), &git.CreateTagOptions{
			Tagger:  &object.Signature{Name: "gittest", Email: "gittest@example.com", When: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)},
			Message: tag,
		})
	}
	if err != nil {
		return "", fmt.Errorf("tag %s/%s %s: %w", owner, name, tag, err)
	}
	return head.Hash().String(), nil
}

// Forge serves s's repositories and, on the same host as a forge does,
// the release assets and raw files at assets (paths such as
// /argoproj/argo-rollouts/releases/download/v1.8.0/install.yaml): GET or
// HEAD of one answers 200, of any other such path 404. heads counts the
// asset requests. Close it after use.
func (s *Server) Forge(assets ...string) (srv *httptest.Server, heads *atomic.Int64) {
	have := map[string]bool{}
	for _, a := range assets {
		have[a] = true
	}
	heads = new(atomic.Int64)
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/releases/download/") || strings.Contains(r.URL.Path, "/raw/") {
			heads.Add(1)
			if !have[r.URL.Path] {
				http.NotFound(w, r)
			}
			return
		}
		s.ServeHTTP(w, r)
	}))
	return srv, heads
}
