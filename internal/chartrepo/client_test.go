package chartrepo_test

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/imagebot/imagebot/internal/chartrepo"
	"github.com/imagebot/imagebot/internal/registry/cache"
	"github.com/imagebot/imagebot/internal/testing/helmrepotest"
)

var day = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

func charts() []helmrepotest.Chart {
	return []helmrepotest.Chart{
		{Name: "nginx", Version: "1.0.0", AppVersion: "1.24.0", Created: day},
		{Name: "nginx", Version: "1.2.0", AppVersion: "1.25.3", Home: "https://nginx.org", Sources: []string{"https://github.com/nginx/nginx"}, Created: day.Add(24 * time.Hour)},
		{Name: "nginx", Version: "2.0.0-rc.1", AppVersion: "1.27.0", Created: day.Add(48 * time.Hour)},
		{Name: "old", Version: "0.1.0", Deprecated: true, Created: day},
	}
}

// TestVersions: a chart's versions, newest first, with the metadata and
// digest `helm repo index` wrote, from one index request however many
// callers ask, for whichever chart.
func TestVersions(t *testing.T) {
	repo := helmrepotest.New(t, charts())
	c := chartrepo.New()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := c.Versions(t.Context(), repo.URL+"/", "nginx"); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	ch, err := c.Versions(t.Context(), repo.URL, "nginx")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range ch.Versions {
		got = append(got, v.Version.Original()+" "+v.AppVersion+" "+v.Created.Format(time.DateOnly))
	}
	want := []string{"2.0.0-rc.1 1.27.0 2026-03-03", "1.2.0 1.25.3 2026-03-02", "1.0.0 1.24.0 2026-03-01"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("versions (-want +got):\n%s", diff)
	}
	v := ch.Versions[1]
	if v.Home != "https://nginx.org" || len(v.Sources) != 1 || ch.Deprecated() {
		t.Errorf("metadata %+v, deprecated %v", v, ch.Deprecated())
	}
	checkArchive(t, v, "nginx")
	if old, err := c.Versions(t.Context(), repo.URL, "old"); err != nil || !old.Deprecated() {
		t.Errorf("old: deprecated %v, err %v; want deprecated", old.Deprecated(), err)
	}
	if stats := c.Stats(); len(stats) != 1 || stats[0].Requests != 1 || stats[0].Indexes != 1 || repo.Requests() != 2 {
		t.Errorf("stats %+v, server saw %d: want one index request (and the archive's)", stats, repo.Requests())
	}
}

// checkArchive downloads the version's archive and checks it against the
// index's digest and Helm's layout.
func checkArchive(t *testing.T, v chartrepo.Version, name string) {
	t.Helper()
	resp, err := http.Get(v.URLs[0])
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if d := helmrepotest.Digest(b); d != v.Digest {
		t.Errorf("archive digest %s, index says %s", d, v.Digest)
	}
	zr, err := gzip.NewReader(bytesReader(b))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var files []string
	for {
		h, err := tr.Next()
		if err != nil {
			break
		}
		files = append(files, h.Name)
	}
	if diff := cmp.Diff([]string{name + "/Chart.yaml", name + "/values.yaml", name + "/templates/deployment.yaml"}, files); diff != "" {
		t.Errorf("archive files (-want +got):\n%s", diff)
	}
}

// TestCache: with a cache, the next run asks conditionally and a 304 is
// the whole cost; within the TTL it asks nothing; a changed index is
// fetched whole.
func TestCache(t *testing.T) {
	repo := helmrepotest.New(t, charts())
	dir := t.TempDir()
	run := func(ttl time.Duration) (chartrepo.Chart, chartrepo.HostStats) {
		t.Helper()
		cc, err := cache.Open(dir, cache.WithTTL(ttl))
		if err != nil {
			t.Fatal(err)
		}
		c := chartrepo.New(chartrepo.WithCache(cc))
		ch, err := c.Versions(context.Background(), repo.URL, "nginx")
		if err != nil {
			t.Fatal(err)
		}
		return ch, c.Stats()[0]
	}
	first, s := run(0)
	if s.Indexes != 1 || s.Requests != 1 {
		t.Errorf("first run %+v, want one full fetch", s)
	}
	again, s := run(0)
	if s.NotModified != 1 || s.Requests != 1 || s.Indexes != 0 {
		t.Errorf("revalidating run %+v, want one 304", s)
	}
	if diff := cmp.Diff(versions(first), versions(again)); diff != "" || again.Versions[1].Digest != first.Versions[1].Digest {
		t.Errorf("cached versions (-want +got):\n%s", diff)
	}
	if _, s = run(time.Hour); s.Requests != 0 || s.FromCache != 1 {
		t.Errorf("run within the TTL %+v, want no request", s)
	}
	repo.Set(append(charts(), helmrepotest.Chart{Name: "nginx", Version: "1.3.0"}))
	ch, s := run(0)
	if s.Indexes != 1 || len(ch.Versions) != 4 {
		t.Errorf("after a change %+v with %d versions, want a full fetch of 4", s, len(ch.Versions))
	}
}

func versions(c chartrepo.Chart) []string {
	var out []string
	for _, v := range c.Versions {
		out = append(out, v.Version.Original())
	}
	return out
}
