package gitops

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/imagebot/imagebot/internal/plan"
)

// gitNotes points a git tag's pull request at the tag's release page,
// where its notes are: URL/releases/tag/TAG on GitHub, Gitea and Forgejo,
// URL/-/releases/TAG on GitLab. "" for other updates and for a repository
// not served over https.
func gitNotes(u plan.Update) string {
	if u.Kind != plan.KindGitTag || len(u.Changes) == 0 || u.Changes[0].Ref.Git == nil {
		return ""
	}
	repo, ok := sourceURL(u.Changes[0].Ref.Git.URL)
	if !ok {
		return ""
	}
	page := repo + "/releases/tag/" + url.PathEscape(u.To)
	if h, _ := url.Parse(repo); h != nil && strings.Contains(h.Host, "gitlab") {
		page = repo + "/-/releases/" + url.PathEscape(u.To)
	}
	return fmt.Sprintf("Tag %s of %s: release notes at %s", lit(u.To), repo, page)
}
