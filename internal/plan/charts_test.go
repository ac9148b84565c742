package plan_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/imagebot/imagebot/internal/chartrepo"
	"github.com/imagebot/imagebot/internal/gate"
	"github.com/imagebot/imagebot/internal/gate/inspect"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/policy"
	"github.com/imagebot/imagebot/internal/testing/helmrepotest"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

var chartDay = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

// chartWorld is an HTTP Helm repository and charts pushed to the test
// registry as `helm push` pushes them (under ghcr.io, through the mirror).
type chartWorld struct {
	http *helmrepotest.Server
	reg  *testRegistry
}

func newChartWorld(t *testing.T) chartWorld {
	t.Helper()
	http := helmrepotest.New(t, []helmrepotest.Chart{
		{Name: "web", Version: "1.2.3", AppVersion: "1.25.0", Created: chartDay},
		{Name: "web", Version: "1.3.0", AppVersion: "1.26.0", Home: "https://web.example.com", Sources: []string{"https://github.com/acme/web"}, Created: chartDay.AddDate(0, 0, 1)},
		{Name: "web", Version: "2.0.0-rc.1", AppVersion: "1.27.0", Created: chartDay.AddDate(0, 0, 2)},
		{Name: "beta", Version: "0.9.0-rc.1", Created: chartDay},
		{Name: "beta", Version: "0.9.0-rc.2", Created: chartDay.AddDate(0, 0, 1)},
		{Name: "old", Version: "0.1.0", Created: chartDay},
		{Name: "old", Version: "0.2.0", Deprecated: true, Created: chartDay.AddDate(0, 0, 1)},
	})
	reg := newRegistry(t, nil)
	for i, v := range []string{"6.5.0", "6.5.1", "6.6.0+build.1"} {
		c := helmrepotest.Chart{Name: "podinfo", Version: v, AppVersion: v}
		reg.Push(t, "ghcr.io/stefanprodan/charts/podinfo", strings.ReplaceAll(v, "+", "_"), registrytest.Chart(t, c, chartDay.AddDate(0, 0, i)))
	}
	return chartWorld{http: http, reg: reg}
}

// chartTree holds every kind of chart version, with the HTTP repository
// at url.
func chartTree(url string) map[string]string {
	return map[string]string{
		"flux/sources.yaml": fmt.Sprintf(`apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata: {name: acme, namespace: flux-system}
spec: {url: %s}
---
apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata: {name: podinfo, namespace: flux-system}
spec: {type: oci, url: oci://ghcr.io/stefanprodan/charts}
---
apiVersion: source.toolkit.fluxcd.io/v1beta2
kind: OCIRepository
metadata: {name: podinfo, namespace: flux-system}
spec:
  url: oci://ghcr.io/stefanprodan/charts/podinfo
  ref:
    tag: 6.5.0
`, url),
		"flux/releases.yaml": `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: web, namespace: flux-system}
spec:
  chart:
    spec:
      chart: web
      version: 1.2.3
      sourceRef: {kind: HelmRepository, name: acme}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: podinfo, namespace: flux-system}
spec:
  chart:
    spec:
      chart: podinfo
      version: 6.5.0
      sourceRef: {kind: HelmRepository, name: podinfo}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: lost, namespace: flux-system}
spec:
  chart:
    spec:
      chart: lost
      version: 1.0.0
      sourceRef: {kind: HelmRepository, name: nowhere}
`,
		"argo/app.yaml": fmt.Sprintf(`apiVersion: argoproj.io/v1alpha1
kind: Application
spec:
  sources:
    - repoURL: %[1]s
      chart: beta
      targetRevision: 0.9.0-rc.1
    - repoURL: %[1]s
      chart: old
      targetRevision: 0.1.0
    - repoURL: ghcr.io/stefanprodan/charts
      chart: podinfo
      targetRevision: 6.5.1
    - repoURL: %[1]s
      chart: web
      targetRevision: 1.*
    - repoURL: https://github.com/acme/deploy.git
      path: prod
      targetRevision: main
`, url),
		"chart/Chart.yaml": fmt.Sprintf(`apiVersion: v2
name: umbrella
version: 0.1.0
dependencies:
  - name: web
    version: 1.2.3
    repository: %s
  - name: local
    version: 0.1.0
    repository: file://../local
`, url),
	}
}

// semverForCharts is the policy job gives charts: Helm's semver rule.
func semverForCharts(t testing.TB, specs map[string]policy.Spec) func(string, string) (*policy.Policy, error) {
	def := policies(t, specs)
	sv, err := policy.New(policy.Spec{Versioning: "semver"})
	if err != nil {
		t.Fatal(err)
	}
	return func(img, file string) (*policy.Policy, error) {
		if _, ok := specs[img]; !ok && strings.Contains(img, "://") {
			return sv, nil
		}
		return def(img, file)
	}
}

// TestBuildCharts: every chart version is an update or a notice; OCI
// charts are listed once per repository through the registry client
// ('_' in tags read as '+'), HTTP ones from one index fetch per
// repository; prereleases only from a prerelease; a deprecated chart and
// the scan's skip reasons are notices.
func TestBuildCharts(t *testing.T) {
	w := newChartWorld(t)
	url := w.http.URL
	res := scanFiles(t, chartTree(url))
	repos := chartrepo.New()
	p, err := plan.Build(t.Context(), res, plan.Options{Registry: w.reg.client(), Charts: indexes{repos}, Policy: semverForCharts(t, nil)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range p.Updates {
		var locs []string
		for _, l := range u.Locations {
			locs = append(locs, fmt.Sprintf("%s:%d", l.File, l.Line))
		}
		got = append(got, fmt.Sprintf("%s %s -> %s (%s, %s) %v chart=%+v", u.Image, u.From, u.To, u.Type, u.Kind, locs, *u.Chart))
	}
	want := []string{
		url + "/beta 0.9.0-rc.1 -> 0.9.0-rc.2 (patch, chart) [argo/app.yaml:7] chart={Repository:" + url + " Name:beta AppVersion: FromAppVersion: Home: Sources:[]}",
		url + "/old 0.1.0 -> 0.2.0 (minor, chart) [argo/app.yaml:10] chart={Repository:" + url + " Name:old AppVersion: FromAppVersion: Home: Sources:[]}",
		url + "/web 1.2.3 -> 1.3.0 (minor, chart) [chart/Chart.yaml:6 flux/releases.yaml:8] chart={Repository:" + url + " Name:web AppVersion:1.26.0 FromAppVersion:1.25.0 Home:https://web.example.com Sources:[https://github.com/acme/web]}",
		// An OCIRepository's tag 6.6.0_build.1 is read as the version
		// it spells, as Flux reads it: one update with the HelmRelease's.
		"oci://ghcr.io/stefanprodan/charts/podinfo 6.5.0 -> 6.6.0+build.1 (minor, chart) [flux/releases.yaml:18 flux/sources.yaml:17] chart={Repository:oci://ghcr.io/stefanprodan/charts Name:podinfo AppVersion: FromAppVersion: Home: Sources:[]}",
		"oci://ghcr.io/stefanprodan/charts/podinfo 6.5.1 -> 6.6.0+build.1 (minor, chart) [argo/app.yaml:13] chart={Repository:oci://ghcr.io/stefanprodan/charts Name:podinfo AppVersion: FromAppVersion: Home: Sources:[]}",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("updates (-want +got):\n%s", diff)
	}
	// The OCIRepository's tag is written as a tag ('+' as '_'), the
	// HelmRelease's version as a version.
	var written []string
	for _, c := range p.Updates[3].Changes {
		written = append(written, fmt.Sprintf("%s:%d %s -> %s", c.Ref.File, c.Ref.Line, c.Ref.Tag, c.Tag))
	}
	if diff := cmp.Diff([]string{"flux/releases.yaml:18 6.5.0 -> 6.6.0+build.1", "flux/sources.yaml:17 6.5.0 -> 6.6.0_build.1"}, written); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	wantNotes := []string{
		"argo/app.yaml:10 " + url + "/old:0.1.0 deprecated: its repository marks the chart deprecated: it gets no new versions; look for its successor",
		`argo/app.yaml:16 ` + url + `/web:1.* range: left alone: a range; pin a version to have it updated (version range "1.*": resolved at deploy time; write one exact version to have it updated)`,
		`argo/app.yaml:19 github.com/acme/deploy:main not-a-tag: revision "main" is a branch: Argo CD follows it; write a tag to have it updated`,
		`chart/Chart.yaml:9 : local: a chart from this tree (file:// or no repository): its version is not looked up`,
		`flux/releases.yaml:28 lost:1.0.0 no-source: HelmRepository "nowhere" (namespace "flux-system") is not in this tree, so its repository is unknown`,
	}
	if diff := cmp.Diff(wantNotes, noticeLines(p)); diff != "" {
		t.Errorf("notices (-want +got):\n%s", diff)
	}
	if len(p.Problems) != 0 {
		t.Errorf("problems: %v", p.Problems)
	}
	// The cost: one index, one tag listing for the chart's repository.
	if n := w.http.Requests(); n != 1 {
		t.Errorf("%d index requests, want 1", n)
	}
	if n := w.reg.Count("GET", "/tags/list"); n != 1 {
		t.Errorf("%d tag listings, want 1", n)
	}
	// The JSON says what a chart update is.
	b, err := json.Marshal(p.Updates[2])
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"kind":"chart"`, `"chart":{"repository":"` + url + `","name":"web","appVersion":"1.26.0","fromAppVersion":"1.25.0"`} {
		if !strings.Contains(string(b), s) {
			t.Errorf("JSON %s lacks %s", b, s)
		}
	}
}

// TestBuildChartGates: minAge reads an HTTP version's created time from
// the index and an OCI chart's from Helm's created annotation; an HTTP
// chart has no signature to check, so signature holds it.
func TestBuildChartGates(t *testing.T) {
	w := newChartWorld(t)
	res := scanFiles(t, chartTree(w.http.URL))
	reg := w.reg.client()
	now := chartDay.AddDate(0, 0, 2).Add(12 * time.Hour)
	p, err := plan.Build(t.Context(), res, plan.Options{
		Registry: reg, Charts: indexes{chartrepo.New()}, Policy: semverForCharts(t, nil), Now: func() time.Time { return now },
		Inspector: inspect.New(reg),
		Gates: func(image, _ string) gate.Spec {
			if strings.HasSuffix(image, "/beta") {
				return gate.Spec{Signature: &gate.Signature{Key: "cosign.pub"}}
			}
			return gate.Spec{MinAge: 36 * time.Hour}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range p.Updates {
		got = append(got, fmt.Sprintf("%s %s -> %s", u.Image, u.From, u.To))
	}
	url := w.http.URL
	want := []string{
		// 6.6.0+build.1 is 12h old: 6.5.1 (1d12h) is the newest old enough.
		url + "/old 0.1.0 -> 0.2.0",
		url + "/web 1.2.3 -> 1.3.0",
		// The HelmRelease's and the OCIRepository's, in one update.
		"oci://ghcr.io/stefanprodan/charts/podinfo 6.5.0 -> 6.5.1",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("updates (-want +got):\n%s", diff)
	}
	var held []string
	for _, n := range p.Notices {
		if n.Reason == plan.ReasonHeld {
			held = append(held, fmt.Sprintf("%s:%d %s", n.File, n.Line, n.Detail))
		}
	}
	wantHeld := []string{
		"argo/app.yaml:7 0.9.0-rc.2: signature not accepted: an HTTP chart repository holds no cosign signatures (publish the chart to an OCI registry to sign it)",
		"argo/app.yaml:13 6.6.0+build.1: 12h old, minAge 1d12h",
	}
	if diff := cmp.Diff(wantHeld, held); diff != "" {
		t.Errorf("held (-want +got):\n%s", diff)
	}
}

// TestBuildChartFailures: a repository that fails is a problem naming its
// URL, and the other charts are still planned; a version gone from the
// index dangles.
func TestBuildChartFailures(t *testing.T) {
	w := newChartWorld(t)
	res := scanFiles(t, map[string]string{
		"a.yaml": fmt.Sprintf(`apiVersion: argoproj.io/v1alpha1
kind: Application
spec:
  sources:
    - {repoURL: %[1]s/missing, chart: web, targetRevision: 1.0.0}
    - {repoURL: %[1]s, chart: web, targetRevision: 1.0.0}
    - {repoURL: %[1]s, chart: web, targetRevision: 1.2.3}
`, w.http.URL),
	})
	p, err := plan.Build(t.Context(), res, plan.Options{Registry: w.reg.client(), Charts: indexes{chartrepo.New()}, Policy: semverForCharts(t, nil)})
	if err != nil {
		t.Fatal(err)
	}
	var probs []string
	for _, pr := range p.Problems {
		probs = append(probs, fmt.Sprintf("%s:%d %s failed=%v kind=%s", pr.File, pr.Line, pr.Message, pr.Failed, pr.Kind))
	}
	url := w.http.URL
	want := []string{
		"a.yaml:5 look up " + url + "/missing/web (1 reference): chart repository " + url + "/missing: GET index.yaml answered 404 Not Found: no index there: check the repository URL (a typo? a git repository or web page rather than a chart repository?) failed=true kind=",
		"a.yaml:6 chart " + url + "/web version 1.0.0 is gone from its repository: helm can no longer install it; restore the version or move to another (this plan moves it to 1.3.0) failed=true kind=dangling",
	}
	if diff := cmp.Diff(want, probs); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if len(p.Updates) != 2 || p.Updates[0].To != "1.3.0" || p.Updates[1].To != "1.3.0" {
		t.Errorf("updates %+v, want web from 1.0.0 and 1.2.3 to 1.3.0", p.Updates)
	}
}

// indexes is the chartrepo client as the plan asks it (internal/job
// adapts it the same way).
type indexes struct{ c *chartrepo.Client }

func (x indexes) Versions(ctx context.Context, repoURL, chart string) (plan.ChartIndex, error) {
	c, err := x.c.Versions(ctx, repoURL, chart)
	if err != nil {
		return plan.ChartIndex{}, err
	}
	out := plan.ChartIndex{Deprecated: c.Deprecated()}
	for _, v := range c.Versions {
		out.Versions = append(out.Versions, plan.ChartVersion{Version: v.Version.Original(), Created: v.Created, AppVersion: v.AppVersion,
			Digest: v.Digest, Home: v.Home, Sources: v.Sources})
	}
	return out, nil
}

func (x indexes) Expect(repoURL string, charts ...string) { x.c.Expect(repoURL, charts...) }

// TestBuildOCIRepositoryUnderscoreTag: an OCIRepository at a tag with '_'
// is at the version it spells: newest here, so up to date, its notice
// quoting the tag as written.
func TestBuildOCIRepositoryUnderscoreTag(t *testing.T) {
	w := newChartWorld(t)
	res := scanFiles(t, map[string]string{"oci.yaml": `apiVersion: source.toolkit.fluxcd.io/v1beta2
kind: OCIRepository
metadata: {name: podinfo}
spec:
  url: oci://ghcr.io/stefanprodan/charts/podinfo
  ref:
    tag: 6.6.0_build.1
`})
	p, err := plan.Build(t.Context(), res, plan.Options{Registry: w.reg.client(), Charts: indexes{chartrepo.New()}, Policy: semverForCharts(t, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Updates) != 0 || len(p.Problems) != 0 {
		t.Errorf("updates %+v, problems %+v: want none", p.Updates, p.Problems)
	}
	want := []string{"oci.yaml:7 oci://ghcr.io/stefanprodan/charts/podinfo:6.6.0_build.1 up-to-date"}
	if diff := cmp.Diff(want, noticeLines(p)); diff != "" {
		t.Errorf("notices (-want +got):\n%s", diff)
	}
}
