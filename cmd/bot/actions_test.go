package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/imagebot/imagebot/internal/job"
	"github.com/rhysd/actionlint"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// repoRoot is the repository root, seen from this package's directory.
const repoRoot = "../.."

func TestWriteActionOutputs(t *testing.T) {
	sum := job.Summary{Updates: 5, Opened: 2, Updated: 1, Closed: 4}
	t.Run("outside Actions", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		if err := writeActionOutputs(environ{Output: out}, sum); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("wrote %s outside Actions (stat: %v)", out, err)
		}
	})
	t.Run("in Actions", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "out")
		os.WriteFile(out, []byte("earlier=1\n"), 0o644) // an earlier step's output stays
		if err := writeActionOutputs(environ{Actions: true, Output: out}, sum); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(out)
		if diff := cmp.Diff("earlier=1\nupdates=5\npull-requests=3\n", string(b)); diff != "" {
			t.Errorf("$GITHUB_OUTPUT (-want +got):\n%s", diff)
		}
	})
	t.Run("unwritable", func(t *testing.T) {
		if err := writeActionOutputs(environ{Actions: true, Output: filepath.Join(t.TempDir(), "missing", "out")}, sum); err == nil {
			t.Error("no error for an output file that cannot be created")
		}
	})
}

// TestActionlint lints the project's workflow, the example users copy, and
// action.yml. actionlint reads action metadata only when a workflow uses a
// local action, so action.yml is checked through a workflow that uses `./`
// with every input and reads every output.
func TestActionlint(t *testing.T) {
	proj, err := actionlint.NewProject(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	lint := func(path string, content []byte) {
		l, err := actionlint.NewLinter(io.Discard, &actionlint.LinterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		errs, err := l.Lint(path, content, proj)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, e := range errs {
			t.Errorf("%s:%d:%d: %s [%s]", path, e.Line, e.Column, e.Message, e.Kind)
		}
	}
	for _, f := range []string{".github/workflows/ci.yml", ".github/examples/imagebot.yml"} {
		b, err := os.ReadFile(filepath.Join(repoRoot, f))
		if err != nil {
			t.Fatal(err)
		}
		lint(f, b)
	}
	lint("uses-local-action.yml", []byte(`on: push
jobs:
  bot:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - id: bot
        uses: ./
        with:
          config: .imagebot.yaml
          dry-run: 'true'
          token: ${{ secrets.GITHUB_TOKEN }}
          args: --log-level debug
          version: v0.0.0
      - run: echo "$U $P"
        env:
          U: ${{ steps.bot.outputs.updates }}
          P: ${{ steps.bot.outputs.pull-requests }}
`))
}

// TestActionMetadata checks what actionlint does not: action.yml's own
// structure, and that its outputs are the ones the bot writes.
func TestActionMetadata(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(repoRoot, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	node, err := yaml.Parse(string(raw))
	if err != nil {
		t.Fatal(err)
	}
	meta, err := node.Map()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"name", "description"} {
		if s, _ := meta[k].(string); s == "" {
			t.Errorf("action.yml: %s is missing", k)
		}
	}
	runs, _ := meta["runs"].(map[string]any)
	if runs["using"] != "composite" {
		t.Errorf("action.yml: runs.using = %v, want composite", runs["using"])
	}

	// Every input used exists, and every input declared is used.
	inputs, _ := meta["inputs"].(map[string]any)
	used := map[string]bool{}
	for _, m := range regexp.MustCompile(`\binputs\.([A-Za-z0-9_-]+)`).FindAllStringSubmatch(string(raw), -1) {
		used[m[1]] = true
		if _, ok := inputs[m[1]]; !ok {
			t.Errorf("action.yml uses inputs.%s, which is not declared", m[1])
		}
	}
	for name := range inputs {
		if !used[name] {
			t.Errorf("action.yml declares input %q but never uses it", name)
		}
	}

	// Steps: a shell for every run step, a pinned ref for every action.
	steps, _ := runs["steps"].([]any)
	ids := map[string]bool{}
	for i, s := range steps {
		step, _ := s.(map[string]any)
		if id, ok := step["id"].(string); ok {
			ids[id] = true
		}
		if _, ok := step["run"]; ok && step["shell"] == nil {
			t.Errorf("action.yml: step %d runs a script without shell:, which composite actions require", i)
		}
		if uses, ok := step["uses"].(string); ok && !strings.Contains(uses, "@") {
			t.Errorf("action.yml: step %d uses %q without a ref", i, uses)
		}
	}

	// Outputs map to step outputs, and the ones of the bot's step are what
	// writeActionOutputs writes.
	written := botOutputs(t)
	outputs, _ := meta["outputs"].(map[string]any)
	if len(outputs) == 0 {
		t.Error("action.yml declares no outputs")
	}
	ref := regexp.MustCompile(`^\$\{\{\s*steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)\s*\}\}$`)
	for name, o := range outputs {
		value, _ := o.(map[string]any)["value"].(string)
		m := ref.FindStringSubmatch(value)
		switch {
		case m == nil:
			t.Errorf("output %s: value %q is not ${{ steps.ID.outputs.NAME }}", name, value)
		case !ids[m[1]]:
			t.Errorf("output %s: no step has id %q", name, m[1])
		case !written[m[2]]:
			t.Errorf("output %s: the bot never writes %q (it writes %v)", name, m[2], written)
		}
	}
}

// botOutputs are the names writeActionOutputs puts in $GITHUB_OUTPUT.
func botOutputs(t *testing.T) map[string]bool {
	out := filepath.Join(t.TempDir(), "out")
	if err := writeActionOutputs(environ{Actions: true, Output: out}, job.Summary{}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	names := map[string]bool{}
	for sc := bufio.NewScanner(f); sc.Scan(); {
		k, _, _ := strings.Cut(sc.Text(), "=")
		names[k] = true
	}
	return names
}

// TestDeployManifests: every file under deploy/ parses as Kubernetes
// objects, and every `serve` command line in them is one serve accepts,
// with the same checks it makes at start-up.
func TestDeployManifests(t *testing.T) {
	var kinds []string
	err := filepath.WalkDir(filepath.Join(repoRoot, "deploy"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if ext := filepath.Ext(p); ext != ".yaml" && ext != ".yml" {
			t.Errorf("%s: not YAML; deploy/ holds manifests only", p)
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		nodes, err := yaml.Parse(string(b))
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		obj, err := nodes.Map()
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		if _, err := nodes.GetValidatedMetadata(); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		kinds = append(kinds, nodes.GetKind())
		checkObject(t, p, nodes.GetKind(), obj)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(kinds)
	if diff := cmp.Diff([]string{"ClusterRole", "ClusterRoleBinding", "CronJob", "Deployment", "Job", "Secret", "Service", "ServiceAccount"}, kinds); diff != "" {
		t.Errorf("kinds under deploy/ (-want +got):\n%s", diff)
	}
}

func checkObject(t *testing.T, file, kind string, obj map[string]any) {
	t.Helper()
	switch kind {
	case "Secret":
		if tok, _ := dig(obj, "stringData", "GITHUB_TOKEN").(string); !strings.HasPrefix(tok, "REPLACE-ME") {
			t.Errorf("%s: GITHUB_TOKEN must stay a REPLACE-ME placeholder, got %q", file, tok)
		}
		return
	case "Deployment", "Job":
		obj, _ = dig(obj, "spec", "template").(map[string]any)
	case "CronJob":
		obj, _ = dig(obj, "spec", "jobTemplate", "spec", "template").(map[string]any)
	default:
		return
	}
	containers, _ := dig(obj, "spec", "containers").([]any)
	for _, c := range containers {
		var args []string
		raw, _ := dig(c, "args").([]any)
		for _, a := range raw {
			s, _ := a.(string)
			args = append(args, s)
		}
		if len(args) == 0 || args[0] != "serve" {
			t.Errorf("%s: args %q, want a serve command", file, args)
			continue
		}
		// The environment Kubernetes and the manifests' Secret give it.
		env := environ{GitHubToken: "from-the-secret", JobIndex: "0"}
		o, err := parseServe(args[1:], env)
		if err != nil {
			t.Errorf("%s: serve rejects %q: %v", file, args, err)
			continue
		}
		if _, err := newServer(context.Background(), o); err != nil {
			t.Errorf("%s: serve %q would not start: %v", file, args, err)
		}
		checkCacheVolume(t, file, o, dig(obj, "spec"), c)
		if kind == "Deployment" {
			checkProbes(t, file, o, obj, c)
		}
	}
}

// checkProbes: the probes and the scrape annotation name what serve serves.
func checkProbes(t *testing.T, file string, o *serveOptions, pod, c any) {
	t.Helper()
	if o.Once {
		t.Errorf("%s: a Deployment must not run serve --once", file)
	}
	_, port, _ := strings.Cut(o.Listen, ":")
	if got := dig(pod, "metadata", "annotations", "prometheus.io/port"); got != port {
		t.Errorf("%s: prometheus.io/port = %v, serve listens on %q", file, got, o.Listen)
	}
	for probe, want := range map[string]string{"livenessProbe": "/healthz", "readinessProbe": "/readyz"} {
		if got := dig(c, probe, "httpGet", "path"); got != want {
			t.Errorf("%s: %s path = %v, want %s", file, probe, got, want)
		}
	}
}

// dig walks nested maps; nil when a key is missing.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}
