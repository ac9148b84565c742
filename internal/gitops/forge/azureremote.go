package forge

import (
	"fmt"
	"net/url"
	"strings"
)

// AzureRemote is where an Azure Repos remote lives: the collection
// (Services' organisation) URL, what --forge-url takes, and
// "Project/repo". It is here, not in the driver, because the job layer
// reads origin before any driver is opened.
type AzureRemote struct {
	Collection, Repository string
}

// ParseAzureRemote reads an Azure Repos clone URL, in each form the hosts hand
// out:
//
//	https://dev.azure.com/{org}/{project}/_git/{repo} (also with user@)
//	https://{org}.visualstudio.com/{project}/_git/{repo}
//	git@ssh.dev.azure.com:v3/{org}/{project}/{repo}
//	https://host/{path}/{collection}/{project}/_git/{repo} (Server)
//
// A URL without "/_git/" (nor Services' SSH form) is not Azure Repos'.
func ParseAzureRemote(remote string) (AzureRemote, error) {
	if rest, ok := strings.CutPrefix(remote, "git@ssh.dev.azure.com:v3/"); ok {
		p := strings.Split(strings.TrimSuffix(rest, ".git"), "/")
		if len(p) != 3 {
			return AzureRemote{}, fmt.Errorf("azure repos remote %q: want v3/ORG/PROJECT/REPO", remote)
		}
		return AzureRemote{Collection: "https://dev.azure.com/" + p[0], Repository: unescapePath(p[1]) + "/" + unescapePath(p[2])}, nil
	}
	u, err := url.Parse(remote)
	if err != nil || u.Host == "" {
		return AzureRemote{}, fmt.Errorf("azure repos remote %q: not a URL", remote)
	}
	before, repo, ok := strings.Cut(u.EscapedPath(), "/_git/")
	if !ok || repo == "" || strings.Contains(strings.Trim(repo, "/"), "/") {
		return AzureRemote{}, fmt.Errorf("azure repos remote %q: want …/PROJECT/_git/REPO", remote)
	}
	i := strings.LastIndex(before, "/")
	if i < 0 || before[i+1:] == "" {
		return AzureRemote{}, fmt.Errorf("azure repos remote %q: no project before /_git/", remote)
	}
	collection := u.Scheme + "://" + u.Host + before[:i]
	if h, _, ok := strings.Cut(u.Host, ".visualstudio.com"); ok && before[:i] == "" {
		collection = "https://dev.azure.com/" + h // the old host of Services
	}
	return AzureRemote{Collection: collection, Repository: unescapePath(before[i+1:]) + "/" + unescapePath(strings.TrimSuffix(strings.Trim(repo, "/"), ".git"))}, nil
}

func unescapePath(s string) string {
	if u, err := url.PathUnescape(s); err == nil {
		return u
	}
	return s
}

// AzureCollection is a collection URL as the driver takes it: without a
// trailing slash (SYSTEM_COLLECTIONURI ends in one), and Services' old
// host https://{org}.visualstudio.com/ as https://dev.azure.com/{org},
// the one host Services answers every organisation on.
func AzureCollection(raw string) string {
	s := strings.TrimSuffix(raw, "/")
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return s
	}
	if org, ok := strings.CutSuffix(strings.ToLower(u.Host), ".visualstudio.com"); ok && strings.Trim(u.Path, "/") == "" && !strings.Contains(org, ".") {
		return "https://dev.azure.com/" + org
	}
	return s
}
