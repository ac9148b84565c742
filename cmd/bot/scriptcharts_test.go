package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/imagebot/imagebot/fixtures"
	"github.com/imagebot/imagebot/internal/testing/helmrepotest"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// Scripts about Helm charts start their chart repositories on demand:
//
//	charts [auth USER PASSWORD]     an HTTP Helm repository serving a real index.yaml and
//	                                chart archives (helmrepotest), with the charts web and
//	                                redis; sets HELM_REPO (http://127.0.0.1:PORT) and HELM_HOST
//	                                (127.0.0.1:PORT), HELM_SLUG (127.0.0.1-PORT, as in branch
//	                                names). It also pushes the OCI charts podinfo and
//	                                cache, as `helm push` does (Helm's media types, '+' as '_'),
//	                                under ghcr.io/acme/charts in the script's registry
//	                                (GHCR_MIRROR serves them). With auth, the HTTP repository
//	                                wants those credentials (basic auth)
//	badcharts                       chart repositories that fail as real ones do: BAD_HUGE
//	                                (an index.yaml of 100 MiB, over the cap), BAD_LOGIN (an HTML
//	                                login page answered 200); their hosts in BAD_HUGE_HOST,
//	                                BAD_LOGIN_HOST
//	helmpush CHART VERSION APP      add a version to the HTTP repository (index.yaml changes)
//	ocipush CHART VERSION APP       push a version of an OCI chart under ghcr.io/acme/charts

type chartsKey struct{}

// scriptCharts is one script's chart repositories.
type scriptCharts struct {
	http *helmrepotest.Server
}

func chartCmds() map[string]func(*testscript.TestScript, bool, []string) {
	return map[string]func(*testscript.TestScript, bool, []string){
		"charts": cmdCharts, "badcharts": cmdBadCharts, "helmpush": cmdHelmPush, "ocipush": cmdOCIPush,
	}
}

// chartDay is when the scripts' chart versions were published: the
// first at chartDay, each next one a day later.
var chartDay = time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)

var (
	httpCharts = []helmrepotest.Chart{
		{Name: "web", Version: "1.2.3", AppVersion: "1.25.0"},
		{Name: "web", Version: "1.3.0", AppVersion: "1.26.0", Home: "https://web.example.com", Sources: []string{"https://github.com/acme/web"}},
		{Name: "web", Version: "2.0.0-rc.1", AppVersion: "1.27.0"},
		{Name: "redis", Version: "17.0.0", AppVersion: "7.2.4"},
		{Name: "redis", Version: "17.1.0", AppVersion: "7.4.1", Home: "https://redis.io"},
	}
	ociCharts = []helmrepotest.Chart{
		{Name: "podinfo", Version: "6.5.0", AppVersion: "6.5.0"},
		{Name: "podinfo", Version: "6.5.1", AppVersion: "6.5.1"},
		{Name: "podinfo", Version: "6.6.0+build.1", AppVersion: "6.6.0", Home: "https://podinfo.example.com", Sources: []string{"https://github.com/stefanprodan/podinfo"}},
		{Name: "cache", Version: "1.0.0", AppVersion: "1.0.0"},
		{Name: "cache", Version: "1.1.0", AppVersion: "1.1.0"},
	}
)

func cmdCharts(ts *testscript.TestScript, neg bool, args []string) {
	var opts []helmrepotest.Option
	switch {
	case !neg && len(args) == 3 && args[0] == "auth":
		opts = append(opts, helmrepotest.WithBasicAuth(args[1], args[2]))
	case neg || len(args) != 0:
		ts.Fatalf("usage: charts [auth USER PASSWORD]")
	}
	c, _ := ts.Value(chartsKey{}).(*scriptCharts)
	if c.http != nil {
		ts.Fatalf("charts: started already")
	}
	var cs []helmrepotest.Chart
	for i, ch := range httpCharts {
		ch.Created = chartDay.AddDate(0, 0, i)
		cs = append(cs, ch)
	}
	c.http = helmrepotest.Start(cs, opts...)
	ts.Defer(c.http.Close)
	ts.Setenv("HELM_REPO", c.http.URL)
	ts.Setenv("HELM_HOST", strings.TrimPrefix(c.http.URL, "http://"))
	ts.Setenv("HELM_SLUG", strings.ReplaceAll(strings.TrimPrefix(c.http.URL, "http://"), ":", "-"))
	for i, ch := range ociCharts {
		pushChart(ts, ch, chartDay.AddDate(0, 0, i))
	}
}

func cmdBadCharts(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: badcharts")
	}
	for env, h := range map[string]http.HandlerFunc{
		// The length says it all: a client that reads past its cap
		// before refusing would wait for 100 MiB.
		"BAD_HUGE": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", strconv.Itoa(100<<20))
			w.Write([]byte("apiVersion: v1\nentries:\n"))
		},
		// A repository behind a single sign-on answers its login page.
		"BAD_LOGIN": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write([]byte("<!DOCTYPE html><html><body><form action=/login>Sign in</form></body></html>"))
		},
	} {
		srv := httptest.NewServer(h)
		ts.Defer(srv.Close)
		ts.Setenv(env, srv.URL)
		ts.Setenv(env+"_HOST", strings.TrimPrefix(srv.URL, "http://"))
	}
}

func cmdHelmPush(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: helmpush chart version appversion")
	}
	c, _ := ts.Value(chartsKey{}).(*scriptCharts)
	if c.http == nil {
		ts.Fatalf("no chart repository: run charts first")
	}
	cs := c.http.Charts()
	c.http.Set(append(cs, helmrepotest.Chart{Name: args[0], Version: args[1], AppVersion: args[2], Created: time.Now()}))
}

func cmdOCIPush(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: ocipush chart version appversion")
	}
	pushChart(ts, helmrepotest.Chart{Name: args[0], Version: args[1], AppVersion: args[2]}, time.Now())
}

// pushChart pushes c as `helm push` would to ghcr.io/acme/charts in the
// script's registry.
func pushChart(ts *testscript.TestScript, c helmrepotest.Chart, created time.Time) {
	reg, _ := ts.Value(registryKey{}).(*fixtures.Registry)
	img, err := registrytest.ChartImage(c, created)
	ts.Check(err)
	ref, err := name.ParseReference(fmt.Sprintf("%s/ghcr.io/acme/charts/%s:%s", reg.Host(), c.Name, strings.ReplaceAll(c.Version, "+", "_")), name.Insecure)
	ts.Check(err)
	ts.Check(remote.Write(ref, img, remote.WithContext(context.Background())))
}

// setupCharts gives the script room for its chart repositories.
func setupCharts(env *testscript.Env) { env.Values[chartsKey{}] = &scriptCharts{} }
