package forge_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// outside is a host implemented outside the package: Forge has no
// unexported method, so a driver can live in its own folder or module.
type outside struct{}

var _ forge.Forge = outside{}

func (outside) Name() string                                                  { return "Outside" }
func (outside) Repository(context.Context) (forge.Repository, error)          { return forge.Repository{}, nil }
func (outside) WhoAmI(context.Context) (forge.Identity, error)                { return forge.Identity{}, nil }
func (outside) BlobURL(string, string, int) string                            { return "" }
func (outside) Changes(context.Context, forge.Query) ([]*forge.Change, error) { return nil, nil }
func (outside) ClosedChanges(context.Context, forge.Query, []string) (map[string][]*forge.Change, error) {
	return nil, nil
}
func (outside) RecentChanges(context.Context, time.Time) ([]*forge.Change, error) { return nil, nil }
func (outside) CreateChange(context.Context, forge.NewChange) (*forge.Change, bool, error) {
	return nil, false, nil
}
func (outside) EditChange(context.Context, int, forge.ChangeEdit) error { return nil }
func (outside) Label(context.Context, int, []string) error              { return nil }
func (outside) RequestReviewers(context.Context, int, []string) error   { return nil }
func (outside) EnableAutoMerge(context.Context, *forge.Change) error    { return nil }
func (outside) Comment(context.Context, int, string) error              { return nil }
func (outside) Commented(context.Context, int, string, func(string) bool) (bool, error) {
	return false, nil
}
func (outside) DeleteBranch(context.Context, string) error                  { return nil }
func (outside) Statuses(context.Context, string) (map[string]string, error) { return nil, nil }
func (outside) FindIssue(context.Context, string, func([]*forge.Issue) *forge.Issue) (*forge.Issue, error) {
	return nil, forge.ErrIssuesOff
}
func (outside) CreateIssue(context.Context, string, string, []string) (*forge.Issue, error) {
	return nil, nil
}
func (outside) EditIssue(context.Context, int, string) error { return nil }
func (outside) GitCredentials() (string, forge.Credentials)  { return "x", forge.StaticToken("t0ken") }

// TestErrors: a repository that is not there is a not-found, in its own
// words, however deeply a driver wraps it.
func TestErrors(t *testing.T) {
	err := fmt.Errorf("get GitLab project acme/x: %w (404)", forge.ErrNoRepository)
	if !errors.Is(err, forge.ErrNotFound) || !errors.Is(err, forge.ErrNoRepository) {
		t.Errorf("%v is not ErrNotFound", err)
	}
	if got, want := err.Error(), "get GitLab project acme/x: no such repository (404)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if errors.Is(forge.ErrNotFound, forge.ErrNoRepository) {
		t.Error("any not-found is a missing repository")
	}
	_, c := outside{}.GitCredentials()
	if err := c.Scrub(errors.New("push with t0ken refused")); err == nil || err.Error() == "push with t0ken refused" {
		t.Errorf("Scrub left the token: %v", err)
	}
}
