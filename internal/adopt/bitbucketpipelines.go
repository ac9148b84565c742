package adopt

import (
	"cmp"
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// BitbucketPipelinesPath is Bitbucket Pipelines' one file per repository.
// init writes it when the repository has none; one that exists holds the
// repository's own pipelines and is never replaced, not even with
// --force: init prints the pipeline to add to it instead.
const BitbucketPipelinesPath = "bitbucket-pipelines.yml"

// bitbucketPipeline is the Bitbucket Pipelines file that runs imagebot:
// a custom pipeline, which runs only when started (by a schedule, or Run
// pipeline), never on a push. Pipelines runs a step's script in a shell
// inside the step's image and imagebot's release image has none, so the
// step runs in GitLabImage (Alpine) and installs the release archive
// (release, "1.2.3"), checked against the release's checksums.txt, as the
// GitLab CI job does. Secured repository variables reach the script as
// environment variables: BITBUCKET_TOKEN and BITBUCKET_USERNAME, and the
// tokens of the registries that look private.
func bitbucketPipeline(release string, hosts []*host) ([]byte, error) {
	release = cmp.Or(release, defaultRelease)
	script := seq(
		"IMAGEBOT_VERSION="+release,
		"cd /tmp",
		`arch=$(uname -m | sed -e s/x86_64/amd64/ -e s/aarch64/arm64/)`,
		`base=https://github.com/imagebot/imagebot/releases/download/v$IMAGEBOT_VERSION`,
		`archive=imagebot_${IMAGEBOT_VERSION}_linux_$arch.tar.gz`,
		`wget -q "$base/$archive" "$base/checksums.txt"`,
		`grep " $archive\$" checksums.txt | sha256sum -c -`,
		`tar -xzf "$archive" imagebot`,
		`cd "$BITBUCKET_CLONE_DIR"`,
		`/tmp/imagebot run --cache "$BITBUCKET_CLONE_DIR/.imagebot-cache"`,
	)
	script.Content[0].LineComment = "the release to run, checked against its checksums.txt"
	step := mapping(
		kv("name", str("imagebot"), ""),
		kv("image", str(GitLabImage), "a shell for the script; imagebot's own image has none"),
		kv("clone", mapping(kv("depth", typed("1", "!!int"), "run reads the default branch from Bitbucket itself")), ""),
		kv("max-time", typed("30", "!!int"), "minutes"),
		kv("caches", seq("imagebot"), ""),
		kv("script", script, ""),
	)
	step.Content[8].HeadComment = strings.Join([]string{
		"Registry answers and the Sigstore trust root from earlier runs",
		"(imagebot --cache); the cache holds no credentials.",
	}, "\n")
	pipeline := kv("imagebot", seqOf(mapping(kv("step", step, ""))), "")
	pipeline[0].LineComment = "run by a schedule or by hand, never by a push"
	root := mapping(
		kv("definitions", mapping(kv("caches", mapping(kv("imagebot", str(".imagebot-cache"), "")), "")), ""),
		kv("pipelines", mapping(kv("custom", mapping(pipeline), "")), ""),
	)
	vars := "BITBUCKET_TOKEN and BITBUCKET_USERNAME"
	for _, h := range hosts {
		if h.private() {
			vars += ", " + TokenEnv(h.name)
		}
	}
	head := []string{
		"Written by `imagebot init`. imagebot opens one pull request per image",
		"update; merging it is the human gate, and your sync tool (Flux, Argo CD)",
		"rolls the change out.",
		"",
		"Add as secured repository variables (Repository settings > Pipelines >",
		"Repository variables, Secured ticked):",
	}
	head = append(head, wrap("  "+vars+".", 74)...)
	head = append(head,
		"BITBUCKET_TOKEN is an API token with scopes (app passwords stopped",
		"working in June 2026): read:repository:bitbucket, write:repository:bitbucket,",
		"read:pullrequest:bitbucket, write:pullrequest:bitbucket, read:user:bitbucket,",
		"read:issue:bitbucket and write:issue:bitbucket (the dashboard issue);",
		"BITBUCKET_USERNAME is its Atlassian account's e-mail.",
		"",
		"Then schedule the pipeline: Pipelines > Schedules > New schedule, the",
		"default branch, the pipeline custom: imagebot, and how often (daily, or",
		"hourly). Run pipeline > custom: imagebot runs it by hand.",
	)
	doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root}, HeadComment: strings.Join(head, "\n")}
	out, err := yaml.MarshalWithOptions(doc, &yaml.EncoderOptions{SeqIndent: yaml.WideSequenceStyle})
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", BitbucketPipelinesPath, err)
	}
	return out, nil
}

// bitbucketPipelineFor is what init writes on Bitbucket Cloud: the
// pipelines file when the repository has none; else nothing to write, the
// pipeline to add to the file there (Result.Snippet), and a note saying so.
func bitbucketPipelineFor(res *Result, exists bool, release string, hosts []*host) error {
	p, err := bitbucketPipeline(release, hosts)
	if err != nil {
		return err
	}
	if !exists {
		res.Workflow, res.WorkflowPath = p, BitbucketPipelinesPath
		return nil
	}
	res.Snippet = p
	res.Notes = append(res.Notes, Note{File: BitbucketPipelinesPath, Msg: "exists and was left alone (init never replaces it, not even with --force): " +
		"add imagebot's pipeline, printed below, to it: the cache under definitions: caches:, the pipeline under pipelines: custom:"})
	return nil
}

// BitbucketServerNote is init's one line on Bitbucket Data Center, which
// has no CI of its own: nothing host-specific is written.
const BitbucketServerNote = "Bitbucket Data Center has no built-in CI, so no pipeline was written: run `imagebot run` on a schedule from the CI you have " +
	"(a Jenkins or Bamboo cron job with BITBUCKET_SERVER_TOKEN set), or `imagebot serve`; see docs/bitbucket.md"
