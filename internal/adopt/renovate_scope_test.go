package adopt

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/imagebot/imagebot/internal/config"
)

// scopeRepo is a home-lab shaped repository: a Flux HelmRelease of the
// kube-prometheus-stack chart, a database in a file of its own, an app
// whose image is used in two files, and images whose names contain the
// chart's name or rook-ceph.
func scopeRepo(renovate string) fstest.MapFS {
	return fstest.MapFS{
		"renovate.json5": {Data: []byte(renovate)},
		"flux/sources.yaml": {Data: []byte(`apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata:
  name: prometheus-community
  namespace: flux-system
spec:
  url: https://prometheus-community.example.com/helm-charts
`)},
		"apps/monitoring/release.yaml": {Data: []byte(`apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: monitoring
  namespace: flux-system
spec:
  chart:
    spec:
      chart: kube-prometheus-stack
      version: 58.0.0
      sourceRef:
        kind: HelmRepository
        name: prometheus-community
`)},
		"apps/monitoring/exporter.yaml": {Data: []byte("image: ghcr.io/acme/kube-prometheus-stack-exporter:1.0.0\n")},
		"apps/db/cluster.yaml":          {Data: []byte("image: ghcr.io/cloudnative-pg/postgresql:16.1\n")},
		"apps/db/backup.yaml":           {Data: []byte("image: ghcr.io/acme/backup:1.0.0\n")},
		"apps/web/web.yaml":             {Data: []byte("image: ghcr.io/acme/backup:1.0.0\n---\nimage: ghcr.io/acme/web:1.0.0\n")},
		"apps/storage/ceph.yaml":        {Data: []byte("image: quay.io/ceph/rook-ceph-operator:v1.14.0\n")},
	}
}

// TestRenovateNoWiderRule: no converted rule takes more than its Renovate
// rule did. A group scoped to files takes the images of those files only
// (an image also used elsewhere is left out, with a note); `*` and /.*/
// become `**`; a contains-regexp becomes a glob that takes what it
// matched, chart included; a regexp that no glob can say, and a templated
// groupName, are skipped with a note; a group of names that are no image
// or chart of the repository is not made an image group.
func TestRenovateNoWiderRule(t *testing.T) {
	src := `{
  packageRules: [
    {matchFileNames: ['apps/db/**'], groupName: 'database'},
    {matchPackageNames: ['*'], addLabels: ['deps']},
    {matchPackageNames: ['/.*/'], addLabels: ['all']},
    {matchPackagePatterns: ['*'], addLabels: ['any']},
    {matchPackageNames: ['/kube-prometheus-stack/'], groupName: 'monitoring stack'},
    {matchDatasources: ['docker'], matchPackageNames: ['/rook-ceph/'], automerge: true},
    {matchPackageNames: ['/^ghcr\\.io\\/acme\\/.+-(api|web)$/'], automerge: true},
    {matchFileNames: ['apps/**'], groupName: '{{ lookup (split packageFileDir "/") 1 }} apps'},
    {matchPackageNames: ['left-pad', 'lodash'], groupName: 'js libraries'},
  ],
}`
	res, err := FromRenovate(t.Context(), scopeRepo(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := config.Check(".imagebot.yaml", res.Config)
	if err != nil {
		t.Fatalf("does not validate: %v\n%s", err, res.Config)
	}
	notes := fmt.Sprint(res.Notes)
	group := func(image string) string {
		if g := c.GroupFor(image); g != nil {
			return g.Name
		}
		return ""
	}
	chart := "https://prometheus-community.example.com/helm-charts/kube-prometheus-stack"
	for image, want := range map[string]string{
		"ghcr.io/cloudnative-pg/postgresql": "database",
		"ghcr.io/acme/backup":               "", // also in apps/web
		"ghcr.io/acme/web":                  "",
		chart:                               "monitoring-stack",
		"ghcr.io/acme/kube-prometheus-stack-exporter": "monitoring-stack",
		"quay.io/ceph/rook-ceph-operator":             "",
	} {
		if got := group(image); got != want {
			t.Errorf("%s is in group %q, want %q\n%s", image, got, want, res.Config)
		}
	}
	for _, g := range c.Groups {
		if g.Name == "js-libraries" || strings.Contains(g.Name, "lookup") {
			t.Errorf("group %q converted: %v", g.Name, g.Match)
		}
	}
	if r := c.For("ghcr.io/acme/web", "apps/web/web.yaml"); strings.Join(r.Labels, ",") != "deps,all,any" {
		t.Errorf("labels of every image: %v, want deps, all and any (from *, /.*/ and the pattern *)", r.Labels)
	}
	if r := c.For("quay.io/ceph/rook-ceph-operator", "apps/storage/ceph.yaml"); len(r.Automerge) == 0 {
		t.Errorf("rook-ceph automerge not converted:\n%s", res.Config)
	}
	if r := c.For("ghcr.io/acme/web", "apps/web/web.yaml"); len(r.Automerge) != 0 {
		t.Errorf("a rule no glob can say was widened to web: automerge %v", r.Automerge)
	}
	for _, want := range []string{
		`group "database": ghcr.io/acme/backup is also used in apps/web/web.yaml, outside the rule's files`,
		`matchPackageNames "/^ghcr\\.io\\/acme\\/.+-(api|web)$/": only a regexp for every name`,
		`is a template (a group per file or directory)`,
		`group "js libraries": docker.io/library/left-pad, docker.io/library/lodash fit no image or chart of this repository`,
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("no note %q; notes:\n%s", want, strings.Join(strings.Split(notes, "} {"), "\n"))
		}
	}
}

// TestRenovateContainsRefused: a contains-regexp whose glob would take a
// reference that the regexp does not match (a chart whose repository URL,
// not its name, holds the text) is skipped with a note.
func TestRenovateContainsRefused(t *testing.T) {
	src := `{packageRules: [{matchPackageNames: ['/prometheus-community/'], automerge: true}]}`
	res, err := FromRenovate(t.Context(), scopeRepo(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(res.Config), "automerge") && !strings.Contains(string(res.Config), "# ") {
		t.Errorf("rule converted:\n%s", res.Config)
	}
	c, err := config.Check(".imagebot.yaml", res.Config)
	if err != nil {
		t.Fatal(err)
	}
	if r := c.For("https://prometheus-community.example.com/helm-charts/kube-prometheus-stack", "apps/monitoring/release.yaml"); len(r.Automerge) != 0 {
		t.Errorf("the chart whose repository URL holds the text automerges: %v", r.Automerge)
	}
	if !strings.Contains(fmt.Sprint(res.Notes), "which Renovate's regexp does not match") {
		t.Errorf("no note: %v", res.Notes)
	}
}

// TestRenovateChartByName: a plain name that is a chart of the repository
// stands for that chart, unless the rule is for images only (docker, or
// a manager that finds no charts).
func TestRenovateChartByName(t *testing.T) {
	chart := "https://prometheus-community.example.com/helm-charts/kube-prometheus-stack"
	for rule, want := range map[string]bool{
		`{matchPackageNames: ['kube-prometheus-stack'], groupName: 'monitoring'}`:                                 true,
		`{matchManagers: ['flux'], matchPackageNames: ['kube-prometheus-stack'], groupName: 'monitoring'}`:        true,
		`{matchManagers: ['helm-values'], matchPackageNames: ['kube-prometheus-stack'], groupName: 'monitoring'}`: false,
		`{matchDatasources: ['docker'], matchPackageNames: ['kube-prometheus-stack'], groupName: 'monitoring'}`:   false,
	} {
		res, err := FromRenovate(t.Context(), scopeRepo(`{packageRules: [`+rule+`]}`), Options{})
		if err != nil {
			t.Fatal(err)
		}
		c, err := config.Check(".imagebot.yaml", res.Config)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.GroupFor(chart) != nil; got != want {
			t.Errorf("%s: chart grouped %v, want %v\n%s", rule, got, want, res.Config)
		}
	}
}

// TestRenovateGlobsValidate: whatever a rule's names are, init writes
// only matches that validate accepts: a glob in capitals matches as
// Renovate's (which ignore case) do, and one that can never fit a name
// (a tag in it) is a note, never a config that does not load.
func TestRenovateGlobsValidate(t *testing.T) {
	src := `{packageRules: [
  {matchPackageNames: ['GHCR.io/Acme/*'], addLabels: ['acme']},
  {matchPackageNames: ['ghcr.io/acme/*:1.2'], addLabels: ['tagged']},
]}`
	res, err := FromRenovate(t.Context(), scopeRepo(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := config.Check(".imagebot.yaml", res.Config)
	if err != nil {
		t.Fatalf("%v\n%s", err, res.Config)
	}
	if r := c.For("ghcr.io/acme/web", "apps/web/web.yaml"); strings.Join(r.Labels, ",") != "acme" {
		t.Errorf("labels %v, want acme", r.Labels)
	}
	if !strings.Contains(fmt.Sprint(res.Notes), `"ghcr.io/acme/*:1.2": match "ghcr.io/acme/*:1.2" never fits`) {
		t.Errorf("notes: %v", res.Notes)
	}
}
