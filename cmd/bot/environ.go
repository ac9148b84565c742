package main

import (
	"cmp"
	"os"

	"github.com/imagebot/imagebot/internal/job"
)

// environ is what imagebot reads from the process environment. It is read
// once, at start-up, into the options of the command that runs (as cli/cli's
// Factory does): no command calls os.Getenv, so a test hands each run the
// environment it means, and serve hands each repository its own
// GITHUB_REPOSITORY without touching the process's.
type environ struct {
	GitHubToken      string // GITHUB_TOKEN: API token and git password
	GitHubAPIURL     string // GITHUB_API_URL: default https://api.github.com
	GitHubServerURL  string // GITHUB_SERVER_URL: default https://github.com
	GitHubRepository string // GITHUB_REPOSITORY: owner/name
	GitLabToken      string // GITLAB_TOKEN: a GitLab project or group access token
	Actions          bool   // GITHUB_ACTIONS=true: annotations, summary, outputs
	StepSummary      string // GITHUB_STEP_SUMMARY: file the plan's Markdown is appended to
	Output           string // GITHUB_OUTPUT: file the step outputs are appended to
	JobIndex         string // JOB_COMPLETION_INDEX: serve --shard auto/n in an Indexed Job
	AllowEnv         string // IMAGEBOT_ALLOW_ENV: comma-separated --allow-env patterns
	// Forge is what the CI environment says of the git host (GitLab CI's
	// CI_SERVER_URL, Gitea's and Forgejo's Actions, token variables).
	Forge job.ForgeEnv
	// GiteaToken is GITEA_TOKEN, else FORGEJO_TOKEN; GiteaServerURL is
	// GITEA_SERVER_URL, else FORGEJO_SERVER_URL, else in their Actions
	// GITHUB_SERVER_URL, which they set to their own server.
	GiteaToken, GiteaServerURL string
	// Bitbucket is BITBUCKET_TOKEN, BITBUCKET_USERNAME and, in Bitbucket
	// Pipelines, BITBUCKET_REPO_FULL_NAME (Cloud); BITBUCKET_SERVER_TOKEN
	// and BITBUCKET_SERVER_URL (Data Center).
	Bitbucket job.Bitbucket
	// Azure is Azure DevOps' token (AZURE_DEVOPS_TOKEN, else Azure
	// Pipelines' SYSTEM_ACCESSTOKEN) and the pipeline's SYSTEM_COLLECTIONURI,
	// SYSTEM_TEAMPROJECT and BUILD_REPOSITORY_NAME.
	Azure job.Azure

	// A GitHub App instead of GITHUB_TOKEN (see githubAuth), by the names
	// of its variables: IMAGEBOT_APP_ID, IMAGEBOT_APP_PRIVATE_KEY,
	// IMAGEBOT_APP_PRIVATE_KEY_FILE and IMAGEBOT_APP_INSTALLATION_ID.
	App map[string]string

	// Lookup reads the variables the config names (registries'
	// passwordEnv), which cannot be known before the config is read.
	Lookup func(name string) (string, bool)
}

// readEnviron reads the environment through lookup (os.LookupEnv outside
// tests).
func readEnviron(lookup func(string) (string, bool)) environ {
	get := func(k string) string { v, _ := lookup(k); return v }
	return environ{
		GitHubToken:      get("GITHUB_TOKEN"),
		GitHubAPIURL:     get("GITHUB_API_URL"),
		GitHubServerURL:  get("GITHUB_SERVER_URL"),
		GitHubRepository: get("GITHUB_REPOSITORY"),
		GitLabToken:      get("GITLAB_TOKEN"),
		Actions:          get("GITHUB_ACTIONS") == "true",
		StepSummary:      get("GITHUB_STEP_SUMMARY"),
		Output:           get("GITHUB_OUTPUT"),
		JobIndex:         get("JOB_COMPLETION_INDEX"),
		AllowEnv:         get("IMAGEBOT_ALLOW_ENV"),
		Forge: job.ForgeEnv{
			GitHubActions:   get("GITHUB_ACTIONS") == "true",
			GitLabServerURL: get("CI_SERVER_URL"), GitLabProject: get("CI_PROJECT_PATH"),
			GitLabToken:    get("GITLAB_TOKEN") != "",
			GiteaActions:   get("GITEA_ACTIONS") == "true" || get("FORGEJO_ACTIONS") == "true",
			GiteaToken:     get("GITEA_TOKEN") != "" || get("FORGEJO_TOKEN") != "",
			ForgejoActions: get("FORGEJO_ACTIONS") == "true",
			AzureRepos:     get("BUILD_REPOSITORY_PROVIDER") == "TfsGit",
			AzureToken:     get("AZURE_DEVOPS_TOKEN") != "",
			// Bitbucket Pipelines runs on Bitbucket Cloud only.
			BitbucketPipelines:   get("BITBUCKET_WORKSPACE") != "" && get("BITBUCKET_REPO_SLUG") != "",
			BitbucketToken:       get("BITBUCKET_TOKEN") != "",
			BitbucketServerToken: get("BITBUCKET_SERVER_TOKEN") != "",
		},
		GiteaToken:     cmp.Or(get("GITEA_TOKEN"), get("FORGEJO_TOKEN")),
		GiteaServerURL: cmp.Or(get("GITEA_SERVER_URL"), get("FORGEJO_SERVER_URL"), giteaActionsServer(get)),
		Bitbucket: job.Bitbucket{Token: get("BITBUCKET_TOKEN"), Username: get("BITBUCKET_USERNAME"), Repository: get("BITBUCKET_REPO_FULL_NAME"),
			ServerToken: get("BITBUCKET_SERVER_TOKEN"), ServerURL: get("BITBUCKET_SERVER_URL")},
		Azure: job.Azure{Token: cmp.Or(get("AZURE_DEVOPS_TOKEN"), get("SYSTEM_ACCESSTOKEN")), Collection: get("SYSTEM_COLLECTIONURI"),
			Project: get("SYSTEM_TEAMPROJECT"), Repository: get("BUILD_REPOSITORY_NAME")},
		App: map[string]string{
			envAppID: get(envAppID), envAppKey: get(envAppKey),
			envAppKeyFile: get(envAppKeyFile), envAppInstallation: get(envAppInstallation),
		},
		Lookup: lookup,
	}
}

// giteaActionsServer is GITHUB_SERVER_URL in Gitea's or Forgejo's
// Actions, where it is their server; "" elsewhere.
func giteaActionsServer(get func(string) string) string {
	if get("GITEA_ACTIONS") == "true" || get("FORGEJO_ACTIONS") == "true" {
		return get("GITHUB_SERVER_URL")
	}
	return ""
}

// osEnviron is the process's environment.
func osEnviron() environ { return readEnviron(os.LookupEnv) }

// getenv answers githubAuth from what was read: GITHUB_TOKEN and the App's
// variables.
func (e environ) getenv(name string) string {
	if name == "GITHUB_TOKEN" {
		return e.GitHubToken
	}
	return e.App[name]
}

// lookup reads a variable the config names; a zero environ has none.
func (e environ) lookup(name string) (string, bool) {
	if e.Lookup == nil {
		return "", false
	}
	return e.Lookup(name)
}
