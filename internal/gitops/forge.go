package gitops

import (
	"context"
	"fmt"
	"net/url"
	"strings"
)

// newForge connects to the host o.Forge names ("" is GitHub).
func newForge(ctx context.Context, o Options) (Forge, error) {
	switch o.Forge {
	case "", GitHub:
		return newGitHub(ctx, o)
	case GitLab:
		return newGitLab(o)
	case Gitea:
		return newGitea(ctx, o)
	}
	return nil, fmt.Errorf("--forge %q: want one of github, gitlab, gitea", o.Forge)
}

// blobURL links a file's line (0: none) at commit under page, the host's
// web path of a repository's files at a commit ("https://github.com/o/r/blob";
// GitLab's ".../-/blob", Gitea's ".../src/commit"). Every host anchors a
// line as #L12.
func blobURL(page, commit, file string, line int) string {
	parts := strings.Split(file, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	u := page + "/" + commit + "/" + strings.Join(parts, "/")
	if line > 0 {
		u += fmt.Sprintf("#L%d", line)
	}
	return u
}

// splitReviewers parts reviewers into people and the owner's teams,
// named "owner/team", by their name alone, as GitHub and Gitea take them.
func splitReviewers(owner string, reviewers []string) (users, teams []string) {
	for _, r := range reviewers {
		if t, ok := strings.CutPrefix(r, owner+"/"); ok {
			teams = append(teams, t)
		} else {
			users = append(users, r)
		}
	}
	return users, teams
}
