package forge_test

import (
	"strings"
	"testing"

	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// TestRepoPath: a project's path is what follows the server's path in
// origin's, so that a GitLab at https://host/gitlab gives group/proj, not
// gitlab/group/proj (issue 27).
func TestRepoPath(t *testing.T) {
	for _, tc := range []struct{ remote, server, want string }{
		{"https://gitlab.com/group/sub/proj.git", "https://gitlab.com", "group/sub/proj"},
		{"https://host/gitlab/group/proj.git", "https://host/gitlab", "group/proj"},
		{"https://oauth2:tok@host/gitlab/group/sub/proj", "https://host/gitlab/", "group/sub/proj"},
		{"git@host:group/proj.git", "https://host/gitlab", "group/proj"},
		{"ssh://git@host/group/proj.git", "https://host/gitlab", "group/proj"},
		{"https://host/other/group/proj.git", "https://host/gitlab", ""},
		{"https://host/proj.git", "https://host", ""},
	} {
		got, err := forge.RepoPath(tc.remote, tc.server)
		if got != tc.want || (tc.want == "") != (err != nil) {
			t.Errorf("forge.RepoPath(%s, %s) = %q, %v; want %q", tc.remote, tc.server, got, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "tok@") {
			t.Errorf("the token is in %v", err)
		}
	}
}
