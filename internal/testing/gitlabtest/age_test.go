package gitlabtest_test

import (
	"testing"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go/v2"
)

// TestAge: an aged merge request is created that much earlier, so that
// created_after (what an hourly limit asks for) leaves it out.
func TestAge(t *testing.T) {
	gl, c := start(t)
	if _, err := create(c, "b1"); err != nil {
		t.Fatal(err)
	}
	hourAgo := time.Now().Add(-time.Hour)
	list := func() int {
		mrs, _, err := c.MergeRequests.ListProjectMergeRequests("acme/gitops", &gitlab.ListProjectMergeRequestsOptions{CreatedAfter: &hourAgo})
		if err != nil {
			t.Fatal(err)
		}
		return len(mrs)
	}
	if n := list(); n != 1 {
		t.Fatalf("created in the last hour: %d, want 1", n)
	}
	if err := gl.Age("acme/gitops", time.Hour+time.Minute); err != nil {
		t.Fatal(err)
	}
	if n := list(); n != 0 {
		t.Errorf("created in the last hour after an hour passed: %d, want 0", n)
	}
	if err := gl.Age("acme/nope", time.Hour); err == nil {
		t.Error("aging a project that is not there: no error")
	}
}
