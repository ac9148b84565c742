package adopt

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"go.yaml.in/yaml/v3"
)

// ciJob is the GitLab CI job as GitLab reads it.
type ciFile struct {
	Stages  []string `yaml:"stages"`
	Include any      `yaml:"include"`
	Job     struct {
		Stage     string            `yaml:"stage"`
		Image     string            `yaml:"image"`
		Variables map[string]string `yaml:"variables"`
		Rules     []struct {
			If string `yaml:"if"`
		} `yaml:"rules"`
		Script        []string `yaml:"script"`
		ResourceGroup string   `yaml:"resource_group"`
		Cache         struct {
			Paths []string `yaml:"paths"`
		} `yaml:"cache"`
	} `yaml:"imagebot"`
}

// alpineApplets are commands Alpine's BusyBox has (alpine:3.22), for
// the script's, with the shell's own builtins.
var alpineApplets = []string{"sh", "cd", "wget", "grep", "sha256sum", "tar", "uname", "sed", "cat", "echo", "test"}

// TestGitLabCIImage lints the job init writes for GitLab: a stage that
// exists (its own, or .pre when included), rules that run it on a
// pipeline schedule, a script, one run at a time, and an image that has
// every command the script runs: a shell above all, which imagebot's
// release image lacks (TestImageHasNoShell).
func TestGitLabCIImage(t *testing.T) {
	for _, standalone := range []bool{true, false} {
		b, err := gitlabCI("1.2.3", standalone)
		if err != nil {
			t.Fatal(err)
		}
		var f ciFile
		if err := yaml.Unmarshal(b, &f); err != nil {
			t.Fatalf("standalone %v: %v\n%s", standalone, err, b)
		}
		j := f.Job
		switch {
		case standalone && !slices.Contains(f.Stages, j.Stage):
			t.Errorf("stage %q not among stages %q", j.Stage, f.Stages)
		case !standalone && (f.Stages != nil || j.Stage != ".pre"):
			t.Errorf("included: stages %q, stage %q; want none, and .pre, which every pipeline has", f.Stages, j.Stage)
		}
		if !slices.ContainsFunc(j.Rules, func(r struct {
			If string `yaml:"if"`
		}) bool {
			return r.If == `$CI_PIPELINE_SOURCE == "schedule"`
		}) {
			t.Errorf("rules %v: not run by a schedule", j.Rules)
		}
		if j.ResourceGroup == "" || len(j.Cache.Paths) == 0 || j.Variables["IMAGEBOT_VERSION"] != "1.2.3" {
			t.Errorf("resource_group %q cache %v variables %v", j.ResourceGroup, j.Cache.Paths, j.Variables)
		}
		if j.Image != GitLabImage || strings.Contains(j.Image, "imagebot/imagebot") {
			t.Errorf("image %q, want %s: a job's script needs a shell", j.Image, GitLabImage)
		}
		if len(j.Script) == 0 || !strings.Contains(j.Script[len(j.Script)-1], "imagebot run") {
			t.Fatalf("script %q does not end in imagebot run", j.Script)
		}
		for _, line := range j.Script {
			for _, cmd := range commands(line) {
				if !slices.Contains(GitLabTools, cmd) && cmd != "cd" && !strings.HasPrefix(cmd, "/tmp/imagebot") {
					t.Errorf("script runs %q, not among GitLabTools %q", cmd, GitLabTools)
				}
			}
		}
	}
	for _, tool := range GitLabTools {
		if !slices.Contains(alpineApplets, tool) {
			t.Errorf("%s: not in %s", tool, GitLabImage)
		}
	}
}

// commands are the commands a script line runs: the first word of each
// pipeline stage and command substitution, past assignments.
func commands(line string) []string {
	var out []string
	for _, part := range strings.FieldsFunc(line, func(r rune) bool { return r == '|' || r == ';' }) {
		if i := strings.Index(part, "$("); i >= 0 {
			out = append(out, commands(part[i+2:])...)
			part = part[:i]
		}
		for _, w := range strings.Fields(part) {
			if strings.Contains(w, "=") {
				continue
			}
			out = append(out, w)
			break
		}
	}
	return out
}

// TestGhcrTokenOnlyOnGitHub: ghcr.io gets the workflow's GITHUB_TOKEN only
// in GitHub Actions, so only the config written for GitHub says it needs
// no entry; on GitLab and Gitea, ghcr.io gets a credentials stub as any
// private registry does.
func TestGhcrTokenOnlyOnGitHub(t *testing.T) {
	fsys := fstest.MapFS{"app.yaml": {Data: []byte("kind: Pod\nspec:\n  containers:\n    - image: ghcr.io/acme/api:1.2.3\n")}}
	for _, tc := range []struct {
		name string
		o    Options
		want bool
	}{
		{"github", Options{ActionRef: "v1"}, true},
		{"gitlab", Options{GitLab: true}, false},
		{"gitea", Options{ActionRef: "v1", Runner: OnGitea}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Init(t.Context(), fsys, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			cfg := string(res.Config)
			if got := strings.Contains(cfg, "GITHUB_TOKEN"); got != tc.want {
				t.Errorf("config mentions GITHUB_TOKEN: %v, want %v:\n%s", got, tc.want, cfg)
			}
			if !tc.want && !strings.Contains(cfg, "passwordEnv: "+TokenEnv("ghcr.io")) {
				t.Errorf("no credentials stub for ghcr.io:\n%s", cfg)
			}
		})
	}
}
