package adopt

import (
	"os"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// TestAzurePipeline: the pipeline init writes on Azure DevOps is valid
// YAML of Azure Pipelines' schema: scheduled only (trigger and pr none, a
// schedule that always runs, on the default branch), the release pinned,
// and the job's token mapped into the step that runs imagebot, which a
// pipeline must do for a script to see System.AccessToken.
func TestAzurePipeline(t *testing.T) {
	out, err := azurePipeline("1.4.0", "trunk", "", []*host{{name: "registry.acme.example"}})
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Trigger   string
		PR        string `yaml:"pr"`
		Schedules []struct {
			Cron     string
			Branches struct{ Include []string }
			Always   bool
		}
		Variables map[string]string
		Steps     []map[string]any
	}
	if err := yaml.Unmarshal(out, &p); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if p.Trigger != "none" || p.PR != "none" {
		t.Errorf("trigger %q, pr %q: want none", p.Trigger, p.PR)
	}
	if len(p.Schedules) != 1 || p.Schedules[0].Cron != defaultCron || !p.Schedules[0].Always || strings.Join(p.Schedules[0].Branches.Include, ",") != "trunk" {
		t.Errorf("schedules: %+v", p.Schedules)
	}
	if p.Variables["IMAGEBOT_VERSION"] != "1.4.0" {
		t.Errorf("variables: %v", p.Variables)
	}
	if len(p.Steps) != 3 || p.Steps[0]["checkout"] != "self" || p.Steps[1]["task"] != "Cache@2" {
		t.Fatalf("steps: %v", p.Steps)
	}
	run := p.Steps[2]
	env, _ := run["env"].(map[string]any)
	script, _ := run["script"].(string)
	if env["SYSTEM_ACCESSTOKEN"] != "$(System.AccessToken)" || env["REGISTRY_ACME_EXAMPLE_TOKEN"] != "$(REGISTRY_ACME_EXAMPLE_TOKEN)" || !strings.Contains(script, `imagebot" run`) || !strings.Contains(script, "sha256sum -c") {
		t.Errorf("the run step: %v", run)
	}
	if !strings.Contains(string(out), "Contribute to pull requests") {
		t.Errorf("the head does not say what the build service needs:\n%s", out)
	}
}

// TestAzurePipelineDocumented: docs/azure-devops.md shows the pipeline
// init writes, its head comment aside, byte for byte.
func TestAzurePipelineDocumented(t *testing.T) {
	out, err := azurePipeline("", "", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../../docs/azure-devops.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(doc), "```yaml\n")
	shown, _, _ := strings.Cut(rest, "```")
	_, body, _ := strings.Cut(string(out), "\ntrigger:")
	if want := "trigger:" + body; shown != want {
		t.Errorf("docs/azure-devops.md shows\n%s\ninit writes\n%s", shown, want)
	}
}
