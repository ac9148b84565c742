package gittest

import (
	"fmt"
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
