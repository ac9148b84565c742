package adopt

import (
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// TestBitbucketPipeline: the file init writes on Bitbucket Cloud is
// Bitbucket Pipelines' schema: one custom pipeline (run by a schedule or
// by hand, never by a push: no default, branches or pull-requests
// pipelines), its step in an image with every command the script runs,
// the release pinned and checked, the cache defined where it is used;
// the head names the secured variables, a private registry's token too,
// and how to add the schedule.
func TestBitbucketPipeline(t *testing.T) {
	out, err := bitbucketPipeline("1.4.0", []*host{{name: "registry.acme.example"}})
	if err != nil {
		t.Fatal(err)
	}
	type step struct {
		Name    string
		Image   string
		Clone   struct{ Depth int }
		Caches  []string
		Script  []string
		MaxTime int `yaml:"max-time"`
	}
	var p struct {
		Definitions struct{ Caches map[string]string }
		Pipelines   map[string]map[string][]struct{ Step step }
	}
	if err := yaml.Unmarshal(out, &p); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(p.Pipelines) != 1 || len(p.Pipelines["custom"]) != 1 || len(p.Pipelines["custom"]["imagebot"]) != 1 {
		t.Fatalf("pipelines: %+v, want custom: imagebot alone", p.Pipelines)
	}
	s := p.Pipelines["custom"]["imagebot"][0].Step
	if s.Image != GitLabImage || s.Clone.Depth != 1 || s.MaxTime == 0 {
		t.Errorf("step: %+v", s)
	}
	for _, c := range s.Caches {
		if p.Definitions.Caches[c] == "" {
			t.Errorf("cache %q is not defined: %v", c, p.Definitions.Caches)
		}
	}
	if len(s.Script) == 0 || s.Script[0] != "IMAGEBOT_VERSION=1.4.0" || !strings.Contains(s.Script[len(s.Script)-1], "imagebot run --cache") ||
		!slices.Contains(s.Script, `grep " $archive\$" checksums.txt | sha256sum -c -`) {
		t.Errorf("script: %q", s.Script)
	}
	for _, line := range s.Script {
		for _, cmd := range commands(line) {
			if !slices.Contains(GitLabTools, cmd) && cmd != "cd" && !strings.HasPrefix(cmd, "/tmp/imagebot") {
				t.Errorf("script runs %q, not in %s", cmd, GitLabImage)
			}
		}
	}
	head := string(out)
	for _, want := range []string{"BITBUCKET_TOKEN and BITBUCKET_USERNAME, REGISTRY_ACME_EXAMPLE_TOKEN", "secured repository variables",
		"write:pullrequest:bitbucket", "app passwords stopped", "Pipelines > Schedules > New schedule"} {
		if !strings.Contains(strings.Join(strings.Fields(strings.ReplaceAll(head, "#", "")), " "), want) {
			t.Errorf("the head does not say %q:\n%s", want, out)
		}
	}
}

// TestBitbucketPipelineDocumented: docs/bitbucket.md shows the file init
// writes, its head comment aside, byte for byte.
func TestBitbucketPipelineDocumented(t *testing.T) {
	out, err := bitbucketPipeline("", nil)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../../docs/bitbucket.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(doc), "```yaml\n")
	shown, _, _ := strings.Cut(rest, "```")
	_, body, _ := strings.Cut(string(out), "\ndefinitions:")
	if want := "definitions:" + body; shown != want {
		t.Errorf("docs/bitbucket.md shows\n%s\ninit writes\n%s", shown, want)
	}
}

// TestBitbucketPipelineKept: where bitbucket-pipelines.yml exists, init
// writes no CI file (Files has the config alone) and hands back the
// pipeline to add, with a note saying the file was left alone.
func TestBitbucketPipelineKept(t *testing.T) {
	fsys := fstest.MapFS{"app.yaml": {Data: []byte("kind: Pod\nspec:\n  containers:\n    - image: nginx:1.25.3\n")}}
	for _, exists := range []bool{false, true} {
		res, err := Init(t.Context(), fsys, Options{Runner: OnBitbucket, HasBitbucketPipelines: exists})
		if err != nil {
			t.Fatal(err)
		}
		files := res.Files(t.TempDir())
		_, written := files[BitbucketPipelinesPath]
		if written == exists || len(files) != map[bool]int{false: 2, true: 1}[exists] || (res.Snippet != nil) != exists {
			t.Errorf("exists %v: files %v, snippet %v", exists, slices.Collect(maps.Keys(files)), res.Snippet != nil)
		}
		noted := slices.ContainsFunc(res.Notes, func(n Note) bool { return n.File == BitbucketPipelinesPath })
		if noted != exists {
			t.Errorf("exists %v: notes %v", exists, res.Notes)
		}
	}
}

// TestConfigSpeaksItsCI: the config init and onboarding write says where
// a registry's secret goes and what runs imagebot in the words of the CI
// it runs in; only the Actions runners' speaks of a workflow, and only
// GitHub's of GITHUB_TOKEN.
func TestConfigSpeaksItsCI(t *testing.T) {
	fsys := fstest.MapFS{"app.yaml": {Data: []byte("kind: Pod\nspec:\n  containers:\n    - image: ghcr.io/acme/api:1.2.3\n    - image: nginx:1.25.3\n")},
		"renovate.json": {Data: []byte(`{"schedule": ["* 5 * * 1-5"]}`)}}
	for _, tc := range []struct {
		name string
		o    Options
		want string
	}{
		{"github", Options{ActionRef: "v1"}, "GITHUB_TOKEN"},
		{"gitea", Options{ActionRef: "v1", Runner: OnGitea}, "the workflow's env"},
		{"gitlab", Options{GitLab: true}, "masked CI/CD variable"},
		{"azure", Options{Azure: true}, "secret pipeline variable"},
		{"bitbucket", Options{Runner: OnBitbucket}, "secured repository variable"},
		{"bitbucket-server", Options{Runner: OnNoCI}, "the environment of the job that runs imagebot"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Onboard(t.Context(), fsys, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			cfg := strings.Join(strings.Fields(strings.ReplaceAll(string(res.Config), "#", "")), " ")
			if !strings.Contains(cfg, tc.want) {
				t.Errorf("no %q in\n%s", tc.want, res.Config)
			}
			actions := tc.name == "github" || tc.name == "gitea"
			for _, w := range []string{"workflow", "Actions", "docker/login-action"} {
				if strings.Contains(cfg, w) != actions {
					t.Errorf("%q in the config: %v, want %v\n%s", w, !actions, actions, res.Config)
				}
			}
			// Azure DevOps and Bitbucket Data Center have no issue tracker.
			noTracker := tc.name == "azure" || tc.name == "bitbucket-server"
			if strings.Contains(cfg, "waits on the dashboard") == noTracker || strings.Contains(res.Lead(), "named in each run's log") != noTracker {
				t.Errorf("the dashboard promised where there is none, or not where there is:\n%s\n%s", res.Config, res.Lead())
			}
			if strings.Contains(cfg, "GITHUB_TOKEN") != (tc.name == "github") {
				t.Errorf("GITHUB_TOKEN off GitHub, or not on it:\n%s", res.Config)
			}
		})
	}
}
