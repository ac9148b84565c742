package adopt

// More runners (Options.Runner) than the Actions ones: Bitbucket
// Pipelines, and none at all for a host without CI of its own (Bitbucket
// Data Center), where imagebot runs from whatever CI the team has.
const (
	OnBitbucket = "bitbucket"
	OnNoCI      = "none"
	// onGitLab and onAzure are what Options.GitLab and Options.Azure mean.
	onGitLab = "gitlab"
	onAzure  = "azure"
)

// ciOf is the CI that o's config runs in, whose words its comments speak.
func ciOf(o Options) string {
	switch {
	case o.GitLab:
		return onGitLab
	case o.Azure:
		return onAzure
	}
	return o.Runner
}

// ciWords are how the config's comments speak of the CI that runs
// imagebot: where a registry's token is set, how a registry is logged in
// to, and what runs imagebot on a schedule. Never GitHub Actions'
// words where imagebot runs elsewhere.
type ciWords struct {
	secret string // "Uncomment what applies and set the secret in ..."
	login  string // "a `docker login` before imagebot runs (...)"
	cron   string // "When `imagebot serve` runs (... has its own schedule)."
	// waits is where the updates the limits hold are listed: the
	// dashboard, or the run's log on a host without an issue tracker
	// (Azure DevOps, Bitbucket Data Center), where it is off.
	waits string
}

func ciWordsOf(ci string) ciWords {
	const dashboard, log = "waits on the dashboard", "waits, named in each run's log (this host has no issue tracker for the dashboard)"
	switch ci {
	case OnGitHub, OnGitea, OnForgejo:
		return ciWords{"the workflow's env", "docker/login-action; cloud registries through a Docker credential helper", "the Actions workflow has its own cron", dashboard}
	case onGitLab:
		return ciWords{"a masked CI/CD variable of that name", "in the job's script; cloud registries through a Docker credential helper", "the GitLab CI job runs on a pipeline schedule", dashboard}
	case onAzure:
		return ciWords{"a secret pipeline variable, mapped into the step's env", "the Docker@2 task's login; cloud registries through a Docker credential helper", "the Azure Pipelines pipeline has its own schedule", log}
	case OnBitbucket:
		return ciWords{"a secured repository variable (Repository settings > Pipelines > Repository variables)", "in the step's script; cloud registries through a Docker credential helper", "the Bitbucket Pipelines schedule runs the custom pipeline", dashboard}
	}
	return ciWords{"the environment of the job that runs imagebot", "cloud registries through a Docker credential helper", "a CI cron job runs `imagebot run`", log}
}
