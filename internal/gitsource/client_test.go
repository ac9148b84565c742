package gitsource

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/localnet"
	"github.com/imagebot/imagebot/internal/registry/cache"
	"github.com/imagebot/imagebot/internal/testing/dnstest"
	"github.com/imagebot/imagebot/internal/testing/gittest"
)

const token = "gittest-token"

// rollouts is a real smart-HTTP remote holding argoproj/argo-rollouts
// with a lightweight tag v1.7.2 and an annotated tag v1.8.0.
func rollouts(t *testing.T) (*gittest.Server, string, string) {
	t.Helper()
	gs, err := gittest.New("", token)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(gs.Close)
	if _, err := gs.CreateRepo("argoproj", "argo-rollouts", map[string][]byte{"install.yaml": []byte("kind: List\n")}, "master"); err != nil {
		t.Fatal(err)
	}
	commit, err := gs.Tag("argoproj", "argo-rollouts", "v1.7.2", false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gs.Tag("argoproj", "argo-rollouts", "v1.8.0", true); err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(gs.URL("argoproj/argo-rollouts"))
	return gs, u.Host, commit
}

func TestListTags(t *testing.T) {
	gs, host, commit := rollouts(t)
	c := New(WithCredentials(map[string]Credentials{host: {Username: "x", Password: token}}), WithLocalHosts([]string{host}))
	repo := "http://" + host + "/argoproj/argo-rollouts"
	for range 3 {
		l, err := c.List(context.Background(), repo)
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("[{v1.7.2 %s} {v1.8.0 %s}] [master]", commit, commit)
		if got := fmt.Sprint(l.Tags, " ", l.Branches); got != want {
			t.Fatalf("listing %s, want %s (an annotated tag peeled to its commit)", got, want)
		}
	}
	if gs.Fetches() != 1 {
		t.Errorf("%d advertisements, want 1 per repository and run", gs.Fetches())
	}
}

// TestLocalHostNamedOnlyInAManifest: a host on this machine that the
// config does not name is not contacted at all.
func TestLocalHostNamedOnlyInAManifest(t *testing.T) {
	gs, host, _ := rollouts(t)
	c := New(WithCredentials(map[string]Credentials{host: {Username: "x", Password: token}}), WithLocalHosts(nil))
	_, err := c.List(context.Background(), "http://"+host+"/argoproj/argo-rollouts")
	if !errors.Is(err, ErrLocalHost) || !strings.Contains(err.Error(), host) {
		t.Fatalf("error %v, want ErrLocalHost naming %s", err, host)
	}
	if len(c.Stats()) != 0 || gs.Fetches() != 0 {
		t.Errorf("requests sent: %v", c.Stats())
	}
}

// TestCredentialsOwnHost: a redirect to another host carries no
// credentials, whether the config's or the URL's.
func TestCredentialsOwnHost(t *testing.T) {
	var leaked []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a := r.Header.Get("Authorization"); a != "" {
			leaked = append(leaked, a)
		}
		http.NotFound(w, r)
	}))
	defer other.Close()
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.RequestURI(), http.StatusFound)
	}))
	defer first.Close()
	h1, h2 := strings.TrimPrefix(first.URL, "http://"), strings.TrimPrefix(other.URL, "http://")
	c := New(WithCredentials(map[string]Credentials{h1: {Username: "x", Password: "config-secret"}}), WithLocalHosts([]string{h1, h2}))
	for _, repo := range []string{first.URL + "/a/b", "http://u:url-secret@" + h1 + "/a/c"} {
		_, err := c.List(context.Background(), repo)
		if err == nil || strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: error %v", repo, err)
		}
	}
	if len(leaked) > 0 {
		t.Errorf("credentials sent to another host: %v", leaked)
	}
}

// TestBadHosts: a host answering HTML, 404, too much or nothing is an
// error naming the repository, in bounded bytes and time.
func TestBadHosts(t *testing.T) {
	hang := make(chan struct{})
	defer close(hang)
	big := advertisement(50_000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/html/"):
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, "<html>sign in</html>")
		case strings.HasPrefix(r.URL.Path, "/text/"):
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, "<html>a page served as text</html>")
		case strings.HasPrefix(r.URL.Path, "/big/"):
			w.Header().Set("Content-Type", "application/x-git-upload-pack-advertisement")
			w.Write(big)
		case strings.HasPrefix(r.URL.Path, "/hang/"):
			select {
			case <-hang:
			case <-r.Context().Done():
			}
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	// Only the hanging host waits for the timeout: the others answer at
	// once, whatever the machine's load.
	c := New(WithLocalHosts([]string{host}), WithMaxBytes(1<<20), WithRetry(0, time.Second))
	short := New(WithLocalHosts([]string{host}), WithTimeout(200*time.Millisecond), WithRetry(0, time.Second))
	for _, tc := range []struct{ path, want string }{
		{"/html/a", "HTML page"},
		{"/missing/a", "not found (404)"},
		{"/text/a", "the answer (text/plain) is not git's smart HTTP ref advertisement"},
		{"/big/a", "over the 1 MiB allowed"},
		{"/hang/a", "no answer within 200ms"},
	} {
		cl := c
		if strings.HasPrefix(tc.path, "/hang/") {
			cl = short
		}
		_, err := cl.List(context.Background(), srv.URL+tc.path)
		if err == nil || !strings.Contains(err.Error(), srv.URL+tc.path) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one naming the URL and saying %q", tc.path, err, tc.want)
		}
	}
}

// advertisement is a smart-HTTP ref advertisement of n tags.
func advertisement(n int) []byte {
	var b strings.Builder
	pkt := func(s string) { fmt.Fprintf(&b, "%04x%s", len(s)+4, s) }
	pkt("# service=git-upload-pack\n")
	b.WriteString("0000")
	hash := strings.Repeat("a", 40)
	pkt(hash + " HEAD\x00multi_ack symref=HEAD:refs/heads/main\n")
	pkt(hash + " refs/heads/main\n")
	for i := range n {
		pkt(fmt.Sprintf("%s refs/tags/v1.%d.%d\n", hash, i/1000, i%1000))
	}
	b.WriteString("0000")
	return []byte(b.String())
}

// TestManyTags: 100,000 tags are listed in one request, within the cap.
func TestManyTags(t *testing.T) {
	body := advertisement(100_000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-git-upload-pack-advertisement")
		w.Write(body)
	}))
	defer srv.Close()
	c := New(WithLocalHosts([]string{strings.TrimPrefix(srv.URL, "http://")}))
	l, err := c.List(context.Background(), srv.URL+"/big/repo")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Tags) != 100_000 || c.Stats()[0].Requests != 1 {
		t.Errorf("%d tags in %+v, want 100000 in one request", len(l.Tags), c.Stats())
	}
}

// TestCache: a fresh listing under --cache answers the next run without a
// request; one read with a URL's own credentials is never kept.
func TestCache(t *testing.T) {
	gs, host, _ := rollouts(t)
	dir := t.TempDir()
	run := func(repo string) {
		t.Helper()
		ch, err := cache.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		c := New(WithCredentials(map[string]Credentials{host: {Username: "x", Password: token}}), WithLocalHosts([]string{host}), WithCache(ch))
		if l, err := c.List(context.Background(), repo); err != nil || len(l.Tags) != 2 {
			t.Fatalf("%v %v", l, err)
		}
	}
	run("http://" + host + "/argoproj/argo-rollouts")
	run("http://" + host + "/argoproj/argo-rollouts")
	if gs.Fetches() != 1 {
		t.Errorf("%d advertisements over two runs, want 1 (the second from the cache)", gs.Fetches())
	}
	run("http://x:" + token + "@" + host + "/argoproj/argo-rollouts")
	run("http://x:" + token + "@" + host + "/argoproj/argo-rollouts")
	if gs.Fetches() != 3 {
		t.Errorf("%d advertisements, want 3: a listing read with a URL's own credentials is not kept", gs.Fetches())
	}
}

// TestServesSignedStorage: a forge that redirects a release download to
// storage signed for GET alone (GitHub) has the asset, whatever the
// storage answers a HEAD.
func TestServesSignedStorage(t *testing.T) {
	storage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "SignatureDoesNotMatch", http.StatusForbidden)
	}))
	defer storage.Close()
	forge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/install.yaml") {
			http.Redirect(w, r, storage.URL+"/blob?sig=x", http.StatusFound)
			return
		}
		http.NotFound(w, r)
	}))
	defer forge.Close()
	c := New(WithLocalHosts([]string{strings.TrimPrefix(forge.URL, "http://"), strings.TrimPrefix(storage.URL, "http://")}))
	for path, want := range map[string]bool{"/o/r/releases/download/v2/install.yaml": true, "/o/r/releases/download/v2/crds.yaml": false} {
		if got, err := c.Serves(context.Background(), forge.URL+path); err != nil || got != want {
			t.Errorf("%s: %v %v, want %v", path, got, err, want)
		}
	}
}

func TestServes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodHead {
			t.Errorf("%s %s, want HEAD", r.Method, r.URL)
		}
		if r.URL.Path == "/o/r/releases/download/v1.8.0/install.yaml" {
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	c := New(WithLocalHosts([]string{strings.TrimPrefix(srv.URL, "http://")}))
	for path, want := range map[string]bool{"/o/r/releases/download/v1.8.0/install.yaml": true, "/o/r/releases/download/v1.8.0/other.yaml": false} {
		if got, err := c.Serves(context.Background(), srv.URL+path); err != nil || got != want {
			t.Errorf("%s: %v %v, want %v", path, got, err, want)
		}
	}
}

// TestHostConcurrency: the repositories of one host are listed at most
// n at a time, however many a plan names at once.
func TestHostConcurrency(t *testing.T) {
	arrived, gate := make(chan struct{}, 20), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-gate
		w.Header().Set("Content-Type", "application/x-git-upload-pack-advertisement")
		w.Write(advertisement(1))
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	c := New(WithLocalHosts([]string{host}), WithHostConcurrency(map[string]int{host: 3}))
	done := make(chan error, 10)
	for i := range 10 {
		go func() {
			_, err := c.List(context.Background(), fmt.Sprintf("%s/acme/r%d", srv.URL, i))
			done <- err
		}()
	}
	for range 3 {
		<-arrived
	}
	select {
	case <-arrived:
		t.Fatal("a fourth request in flight to one host, over the 3 allowed")
	case <-time.After(50 * time.Millisecond):
	}
	close(gate)
	for range 10 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

// TestLocalNameNotDialled: a name that only resolves to this machine (a
// cluster-internal name, an /etc/hosts entry) is refused when dialled,
// unless the config names its host: the guard reads the address, not the
// spelling.
func TestLocalNameNotDialled(t *testing.T) {
	gs, host, _ := rollouts(t)
	port := host[strings.LastIndex(host, ":")+1:]
	named := "git.svc.cluster.test:" + port
	ctx := localnet.WithResolver(t.Context(), dnstest.Resolver(map[string]string{"git.svc.cluster.test": "127.0.0.1"}))
	_, err := New(WithLocalHosts(nil)).List(ctx, "http://"+named+"/argoproj/argo-rollouts")
	if !errors.Is(err, ErrLocalHost) || !strings.Contains(err.Error(), "resolves to 127.0.0.1") || gs.Fetches() != 0 {
		t.Fatalf("err %v after %d fetches, want it refused for its address, without a request", err, gs.Fetches())
	}
	if _, err := New(WithLocalHosts([]string{named}), WithCredentials(map[string]Credentials{named: {Username: "x", Password: token}})).List(ctx, "http://"+named+"/argoproj/argo-rollouts"); err != nil {
		t.Errorf("named in the config: %v", err)
	}
}
