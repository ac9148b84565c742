package adopt

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// GitLabCIPath is GitLab CI's pipeline file: init writes imagebot's job
// there when the repository has none, else into GitLabIncludePath, which
// .gitlab-ci.yml then includes.
const (
	GitLabCIPath      = ".gitlab-ci.yml"
	GitLabIncludePath = ".gitlab/imagebot.gitlab-ci.yml"
)

// GitLabImage is the image the GitLab CI job runs in. GitLab runs a job's
// script in a shell inside its image, and imagebot's release image has
// none (scratch: the binary, CA certificates, a user), so the job runs in
// Alpine, whose BusyBox has sh, wget, sha256sum and tar, and installs the
// release archive there, checked against the release's checksums.txt.
const GitLabImage = "alpine:3.22"

// GitLabTools are the commands the job's script runs, which GitLabImage
// must have (TestGitLabCIImage).
var GitLabTools = []string{"sh", "wget", "grep", "sha256sum", "tar", "uname", "sed"}

// defaultRelease is the release the job installs when init is no release
// itself: a placeholder to pin.
const defaultRelease = "1.0.0"

// gitlabCI is the scheduled GitLab CI job that runs imagebot: its own
// pipeline file (standalone), or a file that the project's .gitlab-ci.yml
// includes. release is the imagebot release to install ("1.2.3").
func gitlabCI(release string, standalone bool) ([]byte, error) {
	if release == "" {
		release = defaultRelease
	}
	arch := `arch=$(uname -m | sed -e s/x86_64/amd64/ -e s/aarch64/arm64/)`
	script := seq(
		"cd /tmp",
		arch,
		`base=https://github.com/imagebot/imagebot/releases/download/v$IMAGEBOT_VERSION`,
		`archive=imagebot_${IMAGEBOT_VERSION}_linux_$arch.tar.gz`,
		`wget -q "$base/$archive" "$base/checksums.txt"`,
		`grep " $archive\$" checksums.txt | sha256sum -c -`,
		`tar -xzf "$archive" imagebot`,
		`cd "$CI_PROJECT_DIR"`,
		`/tmp/imagebot run --cache "$CI_PROJECT_DIR/.imagebot-cache"`,
	)
	rules := seq()
	rules.Content = []*yaml.Node{
		mapping(kv("if", str(`$CI_PIPELINE_SOURCE == "schedule"`), "a pipeline schedule (Build > Pipeline schedules)")),
		mapping(kv("if", str(`$CI_PIPELINE_SOURCE == "web"`), "Run pipeline, by hand")),
	}
	stage := "imagebot"
	if !standalone {
		stage = ".pre" // a stage every pipeline has, whatever stages .gitlab-ci.yml lists
	}
	job := mapping(
		kv("stage", str(stage), ""),
		kv("image", str(GitLabImage), "a shell for the script; imagebot's own image has none"),
		kv("variables", mapping(
			kv("IMAGEBOT_VERSION", quoted(release), "the release to run, checked against its checksums.txt"),
			kv("GIT_DEPTH", quoted("1"), "run reads the default branch from GitLab itself"),
		), ""),
		kv("resource_group", str("imagebot"), "two runs at once would race for the same branches"),
		kv("cache", mapping(
			kv("key", str("imagebot-registry"), ""),
			kv("paths", seq(".imagebot-cache/"), ""),
		), ""),
		kv("rules", rules, ""),
		kv("script", script, ""),
	)
	job.Content[8].HeadComment = strings.Join([]string{
		"Registry answers and the Sigstore trust root from earlier runs",
		"(imagebot --cache); the cache holds no credentials.",
	}, "\n")
	root := mapping()
	if standalone {
		root.Content = append(root.Content, kv("stages", seq("imagebot"), "")...)
	}
	root.Content = append(root.Content, kv("imagebot", job, "")...)
	doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root}, HeadComment: strings.Join([]string{
		"Written by `imagebot init`. imagebot opens one merge request per image",
		"update; merging it is the human gate, and your sync tool (Flux, Argo CD)",
		"rolls the change out.",
		"",
		"It needs a masked CI/CD variable GITLAB_TOKEN: a project (or group) access",
		"token with the api scope and the Developer role (Settings > Access tokens).",
		"The CI job token (CI_JOB_TOKEN) cannot open merge requests. Then add a",
		"schedule under Build > Pipeline schedules, such as 17 5 * * 1-5.",
	}, "\n")}
	out, err := yaml.MarshalWithOptions(doc, &yaml.EncoderOptions{SeqIndent: yaml.WideSequenceStyle})
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", GitLabCIPath, err)
	}
	return out, nil
}

func seq(items ...string) *yaml.Node {
	s := &yaml.Node{Kind: yaml.SequenceNode}
	for _, it := range items {
		s.Content = append(s.Content, str(it))
	}
	return s
}

func quoted(s string) *yaml.Node {
	n := str(s)
	n.Style = yaml.DoubleQuotedStyle
	return n
}

// gitlabCIFor is the GitLab CI file init writes for the repository at
// root (fsys): the whole .gitlab-ci.yml when it has none, else the file
// to include, with a note saying how.
func gitlabCIFor(hasCI bool, release string) (path string, data []byte, note string, err error) {
	if !hasCI {
		data, err = gitlabCI(release, true)
		return GitLabCIPath, data, "", err
	}
	data, err = gitlabCI(release, false)
	return GitLabIncludePath, data, fmt.Sprintf("exists and was left alone: add `include: [{local: %s}]` to it to run imagebot's job", GitLabIncludePath), err
}
