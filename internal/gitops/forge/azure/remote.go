package azure

import (
	"fmt"
	"net/url"
	"strings"
)

// Remote is where an Azure Repos remote lives: the collection (Services'
// organisation) URL, what --forge-url takes, and "Project/repo".
type Remote struct {
	Collection, Repository string
}

// ParseRemote reads an Azure Repos clone URL, in each form the hosts hand
// out:
//
//	https://dev.azure.com/{org}/{project}/_git/{repo} (also with user@)
//	https://{org}.visualstudio.com/{project}/_git/{repo}
//	git@ssh.dev.azure.com:v3/{org}/{project}/{repo}
//	https://host/{path}/{collection}/{project}/_git/{repo} (Server)
//
// A URL without "/_git/" (nor Services' SSH form) is not Azure Repos'.
func ParseRemote(remote string) (Remote, error) {
	if rest, ok := strings.CutPrefix(remote, "git@ssh.dev.azure.com:v3/"); ok {
		p := strings.Split(strings.TrimSuffix(rest, ".git"), "/")
		if len(p) != 3 {
			return Remote{}, fmt.Errorf("azure repos remote %q: want v3/ORG/PROJECT/REPO", remote)
		}
		return Remote{Collection: "https://dev.azure.com/" + p[0], Repository: unescape(p[1]) + "/" + unescape(p[2])}, nil
	}
	u, err := url.Parse(remote)
	if err != nil || u.Host == "" {
		return Remote{}, fmt.Errorf("azure repos remote %q: not a URL", remote)
	}
	before, repo, ok := strings.Cut(u.EscapedPath(), "/_git/")
	if !ok || repo == "" || strings.Contains(strings.Trim(repo, "/"), "/") {
		return Remote{}, fmt.Errorf("azure repos remote %q: want …/PROJECT/_git/REPO", remote)
	}
	i := strings.LastIndex(before, "/")
	if i < 0 || before[i+1:] == "" {
		return Remote{}, fmt.Errorf("azure repos remote %q: no project before /_git/", remote)
	}
	collection := u.Scheme + "://" + u.Host + before[:i]
	if h, _, ok := strings.Cut(u.Host, ".visualstudio.com"); ok && before[:i] == "" {
		collection = "https://dev.azure.com/" + h // the old host of Services
	}
	return Remote{Collection: collection, Repository: unescape(before[i+1:]) + "/" + unescape(strings.TrimSuffix(strings.Trim(repo, "/"), ".git"))}, nil
}

func unescape(s string) string {
	if u, err := url.PathUnescape(s); err == nil {
		return u
	}
	return s
}
