package adopt

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// WorkflowPath is where init writes the GitHub Actions workflow;
// GiteaWorkflowPath and ForgejoWorkflowPath where it writes theirs, for a
// repository on Gitea or Forgejo, whose Actions run GitHub-style workflows.
const (
	WorkflowPath        = ".github/workflows/imagebot.yml"
	GiteaWorkflowPath   = ".gitea/workflows/imagebot.yml"
	ForgejoWorkflowPath = ".forgejo/workflows/imagebot.yml"
)

// Runners are the CI whose workflow init writes (Options.Runner).
const (
	OnGitHub  = ""
	OnGitea   = "gitea"
	OnForgejo = "forgejo"
)

// workflowPath is where the workflow for runner goes.
func workflowPath(runner string) string {
	switch runner {
	case OnGitea:
		return GiteaWorkflowPath
	case OnForgejo:
		return ForgejoWorkflowPath
	}
	return WorkflowPath
}

// The third-party actions the workflow uses, pinned by commit as
// .github/examples/imagebot.yml pins them (TestWorkflowPinsAsExample).
var (
	checkoutAction = pinned{"actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1", "v7.0.1"}
	cacheAction    = pinned{"actions/cache@27d5ce7f107fe9357f9df03efb73ab90386fccae", "v5.0.5"}
)

// pinned is an action at a commit, with the release the commit is.
type pinned struct{ uses, release string }

// defaultCron runs on weekdays, off the hour, when Actions is less busy.
const defaultCron = "17 5 * * 1-5"

// workflow is the Actions workflow that runs imagebot, modelled on
// .github/examples/imagebot.yml. cron is five fields (GitHub has no
// CRON_TZ); secrets are the passwordEnv variables the config's stubs name,
// offered as a commented env block.
func workflow(ref, cron string, hosts []*host) ([]byte, error) {
	return workflowFor(ref, cron, hosts, OnGitHub)
}

// workflowFor is the workflow for runner's Actions. On Gitea and Forgejo
// the Action gets GITEA_TOKEN from a secret (their automatic token's pull
// requests run no workflows, as GitHub's do not); Forgejo resolves a bare
// `uses:` on its own mirror of actions, so the actions are named by their
// GitHub URL there.
func workflowFor(ref, cron string, hosts []*host, runner string) ([]byte, error) {
	if ref == "" {
		ref = "v1"
	}
	if cron == "" {
		cron = defaultCron
	}
	perms := mapping(
		kv("contents", str("write"), "push the imagebot/* branches"),
		kv("pull-requests", str("write"), "open, update and close its pull requests"),
		// Listing permissions sets every other to none: without issues,
		// the dashboard issue is refused (403).
		kv("issues", str("write"), "keep the dashboard issue"),
	)
	var secrets []string
	for _, h := range hosts {
		if v := RunnerToken(h.name); v != "" {
			perms.Content = append(perms.Content, kv("packages", str("read"), "list private "+h.name+" packages with "+v)...)
			continue
		}
		if h.private() {
			secrets = append(secrets, TokenEnv(h.name))
		}
	}
	schedule := mapping(kv("cron", str(cron), ""))
	schedule.Content[1].Style = yaml.SingleQuotedStyle
	if cron == defaultCron {
		schedule.Content[1].LineComment = "weekdays 05:17 UTC; off the hour, when Actions is less busy"
	}
	on := mapping(
		kv("schedule", &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{schedule}}, ""),
		kv("workflow_dispatch", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}, "run it by hand from the Actions tab"),
	)
	with := mapping(kv("args", str("--cache ${{ runner.temp }}/imagebot-cache"), ""))
	with.Content[0].FootComment = strings.Join([]string{
		"config: deploy/.imagebot.yaml   # default: .imagebot.yaml at the root",
		"dry-run: 'true'                 # print what it would do, write nothing",
		"args: --cache ... --max-requests 100 --log-level debug",
	}, "\n")
	action := func(uses string) string {
		if runner == OnForgejo {
			return "https://github.com/" + uses
		}
		return uses
	}
	bot := mapping(kv("id", str("imagebot"), ""), kv("uses", str(action("imagebot/imagebot@"+ref)), ""), kv("with", with, ""))
	if runner != OnGitHub {
		env := mapping(kv("GITEA_TOKEN", str("${{ secrets.IMAGEBOT_TOKEN }}"), ""))
		bot.Content = append(bot.Content, kv("env", env, "")...)
		bot.Content[len(bot.Content)-2].HeadComment = strings.Join([]string{
			"An access token with the write:repository and write:issue scopes, as the",
			"secret IMAGEBOT_TOKEN: pull requests made with the automatic token run",
			"no workflows. The server is this one (GITHUB_SERVER_URL).",
		}, "\n")
	}
	cache := mapping(
		kv("uses", str(action(cacheAction.uses)), cacheAction.release),
		kv("with", mapping(
			kv("path", str("${{ runner.temp }}/imagebot-cache"), ""),
			kv("key", str("imagebot-registry-${{ runner.os }}-${{ github.run_id }}"), ""),
			kv("restore-keys", str("imagebot-registry-${{ runner.os }}-"), ""),
		), ""),
	)
	cache.HeadComment = strings.Join([]string{
		"Registry answers and the Sigstore trust root from earlier runs",
		"(imagebot --cache): each run saves a new entry and restores the newest",
		"earlier one; GitHub removes entries unused for 7 days. The cache holds",
		"no credentials.",
	}, "\n")
	summary := mapping(
		kv("name", str("Summary"), ""),
		kv("env", mapping(
			kv("UPDATES", str("${{ steps.imagebot.outputs.updates }}"), ""),
			kv("PULLS", str("${{ steps.imagebot.outputs.pull-requests }}"), ""),
		), ""),
		kv("run", str(`echo "$UPDATES updates, $PULLS pull requests opened or updated"`), ""),
	)
	steps := &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{
		mapping(kv("uses", str(action(checkoutAction.uses)), checkoutAction.release)), cache, bot, summary,
	}}
	job := mapping(
		kv("runs-on", str("ubuntu-latest"), ""),
		kv("timeout-minutes", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: "30"}, ""),
	)
	stepsKV := kv("steps", steps, "")
	if len(secrets) > 0 {
		env := []string{"The tokens that .imagebot.yaml's passwordEnv names, from the repository's secrets:", "env:"}
		for _, s := range secrets {
			env = append(env, fmt.Sprintf("  %s: ${{ secrets.%s }}", s, s))
		}
		stepsKV[0].HeadComment = strings.Join(env, "\n")
	}
	job.Content = append(job.Content, stepsKV...)
	conc := mapping(kv("group", str("imagebot"), ""), kv("cancel-in-progress", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "false"}, ""))
	root := mapping(
		kv("name", str("imagebot"), ""),
		kv("on", on, ""),
		kv("permissions", perms, ""),
		kv("concurrency", conc, ""),
		kv("jobs", mapping(kv("imagebot", job, "")), ""),
	)
	// "on" is a boolean to YAML 1.1 readers; GitHub reads it as the key
	// it is, and so do the examples everyone copies.
	root.Content[2].Style = 0
	root.Content[6].HeadComment = "Two runs at once would race for the same branches."
	doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root}, HeadComment: strings.Join([]string{
		"Written by `imagebot init`. imagebot opens one pull request per image",
		"update; merging it is the human gate, and your sync tool (Flux, Argo CD)",
		"rolls the change out.",
	}, "\n")}
	out, err := yaml.MarshalWithOptions(doc, &yaml.EncoderOptions{SeqIndent: yaml.WideSequenceStyle})
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", workflowPath(runner), err)
	}
	return out, nil
}

// kv is one key and value of a mapping, with a line comment.
func kv(key string, v *yaml.Node, comment string) []*yaml.Node {
	if comment != "" {
		v.LineComment = comment
	}
	return []*yaml.Node{str(key), v}
}

func mapping(pairs ...[]*yaml.Node) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode}
	for _, p := range pairs {
		m.Content = append(m.Content, p...)
	}
	return m
}
