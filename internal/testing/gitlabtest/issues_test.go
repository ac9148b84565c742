package gitlabtest_test

import (
	"net/http"
	"strings"
	"testing"

	gitlab "gitlab.com/gitlab-org/api/client-go/v2"
)

// TestIssueDescriptionLimit: GitLab refuses an issue description over
// 1,048,576 characters with 400, on create and on edit; exactly that
// many, in characters of several bytes, is kept.
func TestIssueDescriptionLimit(t *testing.T) {
	_, c := start(t)
	most := strings.Repeat("é", 1<<20)
	is, _, err := c.Issues.CreateIssue("acme/gitops", &gitlab.CreateIssueOptions{Title: gitlab.Ptr("x"), Description: gitlab.Ptr(most)})
	if err != nil {
		t.Fatalf("create with 1,048,576 characters: %v", err)
	}
	if _, _, err := c.Issues.UpdateIssue("acme/gitops", is.IID, &gitlab.UpdateIssueOptions{Description: gitlab.Ptr(most + "x")}); status(err) != http.StatusBadRequest {
		t.Errorf("edit over the limit: %v", err)
	}
	if _, _, err := c.Issues.CreateIssue("acme/gitops", &gitlab.CreateIssueOptions{Title: gitlab.Ptr("y"), Description: gitlab.Ptr(most + "x")}); status(err) != http.StatusBadRequest {
		t.Errorf("create over the limit: %v", err)
	}
}
