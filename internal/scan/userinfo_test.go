package scan

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// TestChartURLCredentials (issue 25 item 3): a chart repository URL
// written with a password names its chart without them. The credentials
// travel apart, for the request alone (RequestURL), and nothing the scan
// shows (a chart's name, a notice, a problem) nor prints holds them.
func TestChartURLCredentials(t *testing.T) {
	const pw = "PASSWORD-p%40ss"
	fsys := fstest.MapFS{
		"argo.yaml": {Data: []byte(`apiVersion: argoproj.io/v1alpha1
kind: Application
spec:
  sources:
  - repoURL: https://bot:` + pw + `@charts.example.com/stable/
    chart: web
    targetRevision: 1.2.3
  - repoURL: https://bot:` + pw + `@git.example.com/acme/app.git
    targetRevision: main
  - repoURL: ftp://bot:` + pw + `@charts.example.com
    chart: bad
    targetRevision: 1.0.0
`)},
		"flux.yaml": {Data: []byte(`apiVersion: source.toolkit.fluxcd.io/v1
kind: HelmRepository
metadata: {name: repo, namespace: flux-system}
spec: {url: "http://bot:` + pw + `@charts.example.com/flux"}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: redis, namespace: flux-system}
spec:
  chart:
    spec:
      chart: redis
      version: ">=1"
      sourceRef: {kind: HelmRepository, name: repo}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: cache, namespace: flux-system}
spec:
  chart:
    spec:
      chart: cache
      version: 2.0.0
      sourceRef: {kind: HelmRepository, name: repo}
`)},
		"chart/Chart.yaml": {Data: []byte("apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n- name: db\n  version: 3.0.0\n  repository: https://bot:" + pw + "@charts.example.com/deps\n- name: odd\n  version: 1.0.0\n  repository: bot:" + pw + "@charts.example.com\n")},
	}
	res, err := FS(t.Context(), fsys, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res.Charts {
		c := r.Chart
		got = append(got, fmt.Sprintf("%s %s user=%s password=%v request=%s", r.Location, r.Image, c.Credentials.Username(), c.Credentials.Password() == "PASSWORD-p@ss", strings.ReplaceAll(c.RequestURL(), "PASSWORD-p%40ss", "PW")))
	}
	want := []string{
		"argo.yaml:7:21 https://charts.example.com/stable/web user=bot password=true request=https://bot:PW@charts.example.com/stable",
		"chart/Chart.yaml:6:12 https://charts.example.com/deps/db user=bot password=true request=https://bot:PW@charts.example.com/deps",
		"flux.yaml:23:16 http://charts.example.com/flux/cache user=bot password=true request=http://bot:PW@charts.example.com/flux",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("charts (-want +got):\n%s", diff)
	}
	shown, _ := json.Marshal(res)
	printed := fmt.Sprintf("%v %+v %#v %s", res, res, res, shown)
	if strings.Contains(printed, "PASSWORD") || strings.Contains(printed, "p@ss") {
		t.Errorf("the password is in what the scan shows or prints:\n%s", printed)
	}
	if len(res.Skipped) < 3 {
		t.Errorf("skipped %+v, want the git source, the range, the bad scheme and the odd repository noticed", res.Skipped)
	}
}
