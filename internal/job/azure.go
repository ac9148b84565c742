package job

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// Azure is how Run and Rollback reach a repository on Azure DevOps
// (Services, dev.azure.com, or Server at any URL), as a PAT or Azure
// Pipelines' environment says it.
type Azure struct {
	// Token is AZURE_DEVOPS_TOKEN (a PAT), else SYSTEM_ACCESSTOKEN (the
	// pipeline's job token, when the pipeline maps it into the step's
	// environment).
	Token string
	// Collection is SYSTEM_COLLECTIONURI: the organisation's URL
	// ("https://dev.azure.com/contoso/") or a Server collection's.
	Collection string
	// Project and Repository are SYSTEM_TEAMPROJECT and
	// BUILD_REPOSITORY_NAME: the repository when there is no origin.
	Project, Repository string
}

// AzureHost is an Azure DevOps collection as far as its token is
// concerned: the token goes to that collection's URL and nowhere else
// (on dev.azure.com, every organisation shares the host; the path keeps
// them apart).
func AzureHost(collection string) Host {
	return Host{Name: "Azure DevOps", URL: collection, Var: "--forge-url (or SYSTEM_COLLECTIONURI)",
		Example: "https://dev.azure.com/ORG or https://tfs.example.com/tfs/DefaultCollection",
		Hint:    "or set --forge-url (or SYSTEM_COLLECTIONURI) to the collection origin is in"}
}

// azureCollection is the collection's URL: --forge-url, else
// SYSTEM_COLLECTIONURI, else the one origin is in; "" when none says.
// Services' old host {org}.visualstudio.com is dev.azure.com/{org}.
func (o *Options) azureCollection(origin string) string {
	if s := cmp.Or(o.Forge.URL, o.Azure.Collection); s != "" {
		return forge.AzureCollection(s)
	}
	if r, err := forge.ParseAzureRemote(gitops.RedactURL(origin)); err == nil {
		return r.Collection
	}
	return ""
}

// AzureCloneURL is the https clone URL of repository ("Project/repo") in
// a collection, as Azure Repos writes it.
func AzureCloneURL(collection, repository string) string {
	project, repo, _ := strings.Cut(repository, "/")
	return strings.TrimSuffix(collection, "/") + "/" + url.PathEscape(project) + "/_git/" + url.PathEscape(repo)
}

// azureConnection is how run and rollback reach the repository on Azure
// DevOps. ok is false without a token on a dry run. The repository is
// origin's (or, with no origin, SYSTEM_TEAMPROJECT/BUILD_REPOSITORY_NAME's),
// and must be in the collection: git is then sent to the collection's own
// clone URL, so that the token reaches no other host or organisation, an
// ssh or {org}.visualstudio.com origin included.
func azureConnection(o *Options, or origin, log *slog.Logger) (gitops.Options, bool, error) {
	a := o.Azure
	server := o.azureCollection(or.url)
	c := gitops.Options{Forge: forge.Azure, APIURL: server, Token: a.Token, Logger: log}
	if err := checkRepoDir(o.Repo); err != nil {
		return c, false, err
	}
	host := AzureHost(server)
	if err := host.CheckRemote(""); err != nil { // the collection's URL itself
		return c, false, explain(err, "no Azure DevOps collection to send %s to: set --forge-url to it (https://dev.azure.com/ORG, "+
			"or a Server collection such as https://tfs.example.com/tfs/DefaultCollection), or run in a clone whose origin is on Azure Repos", tokenVar(a.Token))
	}
	switch err := or.err; {
	case err == nil:
		r, perr := forge.ParseAzureRemote(gitops.RedactURL(or.url))
		if perr != nil {
			return c, false, explain(perr, "origin %s is not an Azure Repos clone URL (…/PROJECT/_git/REPO), but %s says the host is Azure DevOps: "+
				"run in a clone of the Azure DevOps repository, or, for a repository on another host, without %s", gitops.RedactURL(or.url), o.HostOf(or.url).Why, o.HostOf(or.url).Why)
		}
		if !strings.EqualFold(r.Collection, server) {
			return c, false, fmt.Errorf("the git remote %s is in the Azure DevOps collection %s, not in %s (%s): "+
				"the token goes to its own collection only, so nothing was sent; run in a clone of a repository there, or set --forge-url to %s",
				gitops.RedactURL(or.url), r.Collection, server, host.Var, r.Collection)
		}
		c.Repository = r.Repository
	case errors.Is(err, git.ErrRemoteNotFound), errors.Is(err, git.ErrRepositoryNotExists):
		if a.Project == "" || a.Repository == "" {
			return c, false, explain(err, "%s has no git remote `origin`: run inside a clone of the Azure Repos repository, "+
				"or in Azure Pipelines, which sets SYSTEM_TEAMPROJECT and BUILD_REPOSITORY_NAME", dirName(o.Repo))
		}
		c.Repository = a.Project + "/" + a.Repository
	default:
		return c, false, err
	}
	c.URL = AzureCloneURL(server, c.Repository)
	if err := host.CheckRemote(c.URL); err != nil {
		return c, false, err
	}
	// Azure Repos refuses go-git's default fetch (the driver's multi_ack
	// workaround): set up before anything is fetched, whoever opens first.
	forge.SetUpGit(forge.Azure)
	return c, true, nil
}

// tokenVar names the variable a token came from, in messages, by its
// shape: the job token is a JWT (three dot-separated parts), a PAT is not.
func tokenVar(token string) string {
	if strings.Count(token, ".") == 2 {
		return "SYSTEM_ACCESSTOKEN"
	}
	return "AZURE_DEVOPS_TOKEN"
}

// explainAzure says what to do about Azure DevOps' and git's refusals, in
// one line naming the collection and the token's variable; any other
// failure leaves the run partly done (exit 2).
func explainAzure(err error, c gitops.Options) error {
	v := tokenVar(c.Token)
	var he *forge.HTTPError
	if errors.As(err, &he) {
		said := cmp.Or(he.Message, he.Err.Error()) // Azure DevOps' "TF400813: ..."
		switch {
		case he.Status == http.StatusUnauthorized && strings.Contains(err.Error(), "sign-in page"):
			return explain(err, "Azure DevOps at %s answered with its sign-in page (203) instead of the API: it did not take %s, "+
				"which is expired, revoked, of another organisation, or not a PAT; create a new one with the Code (Read & Write) scope", c.APIURL, v)
		case he.Status == http.StatusUnauthorized:
			return explain(err, "Azure DevOps at %s rejected %s (%s): it is expired, revoked or mistyped; "+
				"create a new PAT with the Code (Read & Write) scope for this organisation", c.APIURL, v, status(he.Status, said))
		case he.Status == http.StatusForbidden:
			return explain(err, "Azure DevOps at %s refused %s on %s (%s): a PAT needs the Code (Read & Write) scope; the pipeline's job token needs "+
				"the build service identity (\"PROJECT Build Service (ORG)\" or \"Project Collection Build Service (ORG)\") to have Contribute, Create branch and "+
				"Contribute to pull requests on the repository", c.APIURL, v, c.Repository, status(he.Status, said))
		case errors.Is(err, forge.ErrNoRepository) || he.Status == http.StatusNotFound && strings.HasPrefix(err.Error(), "get repository "):
			return explain(err, "Azure DevOps at %s has no repository %s that %s can see (404): check origin's URL (or SYSTEM_TEAMPROJECT and "+
				"BUILD_REPOSITORY_NAME) and the token's access to the project", c.APIURL, c.Repository, v)
		}
	}
	if errors.Is(err, transport.ErrAuthenticationRequired) || errors.Is(err, transport.ErrAuthorizationFailed) {
		return explain(err, "the git remote %s refused %s: check that it is valid, not expired, and may push (Code (Read & Write); "+
			"for the job token, Contribute on the repository)", gitops.RedactURL(c.URL), v)
	}
	return &PartialError{err}
}

// AzureKind is Azure DevOps' --forge name.
const AzureKind = forge.Azure

// SetUpGit prepares the process's git for kind's remotes, for what
// clones before any run opens the host (serve's --clone): on Azure
// DevOps, go-git's multi_ack workaround, without which Azure Repos
// refuses every fetch.
func SetUpGit(kind gitops.Kind) { forge.SetUpGit(kind) }
