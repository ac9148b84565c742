package adopt

import (
	"cmp"
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// AzurePipelinesPath is the pipeline init writes for a repository on Azure
// DevOps. Azure Pipelines finds no file by its name: a pipeline is created
// from it once (Pipelines > New pipeline > Azure Repos Git > Existing
// Azure Pipelines YAML file), as the file's head says.
const AzurePipelinesPath = ".azure-pipelines/imagebot.yml"

// azurePipeline is the scheduled Azure Pipelines pipeline that runs
// imagebot with the job's own token: on the hosted Ubuntu agent, which
// has curl, sha256sum and tar, it installs the release archive (release,
// "1.2.3"), checked against the release's checksums.txt, and runs it in
// the checkout. branch is the repository's default branch, the one the
// schedule runs on; cron is five fields, in UTC. The registries that look
// private get their token from a secret variable of the same name, which
// a pipeline must map into the step's env for the script to see it.
func azurePipeline(release, branch, cron string, hosts []*host) ([]byte, error) {
	release = cmp.Or(release, defaultRelease)
	cron = cmp.Or(cron, defaultCron)
	branch = cmp.Or(branch, "main")
	script := strings.Join([]string{
		"set -eu",
		`arch=$(uname -m | sed -e s/x86_64/amd64/ -e s/aarch64/arm64/)`,
		`base=https://github.com/imagebot/imagebot/releases/download/v$IMAGEBOT_VERSION`,
		`archive=imagebot_${IMAGEBOT_VERSION}_linux_$arch.tar.gz`,
		`cd "$AGENT_TEMPDIRECTORY"`,
		`curl -fsSL -O "$base/$archive" -O "$base/checksums.txt"`,
		`grep " $archive\$" checksums.txt | sha256sum -c -`,
		`tar -xzf "$archive" imagebot`,
		`cd "$BUILD_SOURCESDIRECTORY"`,
		`"$AGENT_TEMPDIRECTORY/imagebot" run --cache "$PIPELINE_WORKSPACE/imagebot-cache"`,
	}, "\n") + "\n"
	run := str(script)
	run.Style = yaml.LiteralStyle
	schedule := mapping(
		kv("cron", quoted(cron), "UTC"),
		kv("displayName", str("imagebot"), ""),
		kv("branches", mapping(kv("include", strs([]string{branch}), "the default branch: one run, which reads it from Azure Repos")), ""),
		kv("always", typed("true", "!!bool"), "run even when nothing was pushed: new images are not pushes"),
	)
	env := mapping(kv("SYSTEM_ACCESSTOKEN", str("$(System.AccessToken)"), "the job's token: see above"))
	for _, h := range hosts {
		if h.private() {
			v := TokenEnv(h.name)
			env.Content = append(env.Content, kv(v, str("$("+v+")"), "a secret variable")...)
		}
	}
	step := mapping(
		kv("script", run, ""),
		kv("displayName", str("imagebot run"), ""),
		kv("env", env, ""),
	)
	cache := mapping(
		kv("task", str("Cache@2"), ""),
		kv("inputs", mapping(
			kv("key", str(`imagebot-registry | "$(Build.BuildId)"`), ""),
			kv("restoreKeys", str("imagebot-registry"), ""),
			kv("path", str("$(Pipeline.Workspace)/imagebot-cache"), ""),
		), ""),
	)
	cache.HeadComment = strings.Join([]string{
		"Registry answers and the Sigstore trust root from earlier runs",
		"(imagebot --cache): each run saves a new entry and restores the newest",
		"earlier one. The cache holds no credentials.",
	}, "\n")
	root := mapping(
		kv("trigger", str("none"), "no build per push"),
		kv("pr", str("none"), "nor per pull request"),
		kv("schedules", seqOf(schedule), ""),
		kv("pool", mapping(kv("vmImage", str("ubuntu-latest"), "")), ""),
		kv("variables", mapping(kv("IMAGEBOT_VERSION", quoted(release), "the release to run, checked against its checksums.txt")), ""),
		kv("steps", seqOf(
			mapping(kv("checkout", str("self"), ""), kv("fetchDepth", typed("1", "!!int"), "run reads the default branch from Azure Repos itself")),
			cache,
			step,
		), ""),
	)
	doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root}, HeadComment: strings.Join([]string{
		"Written by `imagebot init`. imagebot opens one pull request per image",
		"update; completing it is the human gate, and your sync tool (Flux, Argo CD)",
		"rolls the change out.",
		"",
		"Create the pipeline from this file once: Pipelines > New pipeline > Azure",
		"Repos Git > this repository > Existing Azure Pipelines YAML file.",
		"",
		"It runs with the job's token (System.AccessToken). Give the build service",
		"identity (\"PROJECT Build Service (ORG)\", or \"Project Collection Build",
		"Service (ORG)\" when the job is collection-scoped) Contribute, Create",
		"branch and Contribute to pull requests on this repository: Project settings >",
		"Repositories > this repository > Security. Or use a PAT with the Code",
		"(Read & Write) scope: a secret variable mapped as AZURE_DEVOPS_TOKEN.",
	}, "\n")}
	out, err := yaml.MarshalWithOptions(doc, &yaml.EncoderOptions{SeqIndent: yaml.WideSequenceStyle})
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", AzurePipelinesPath, err)
	}
	return out, nil
}

// typed is a plain scalar of tag ("!!bool", "!!int").
func typed(v, tag string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: v} }

// seqOf is a block sequence of nodes.
func seqOf(items ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Content: items}
}
