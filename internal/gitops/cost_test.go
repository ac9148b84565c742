package gitops_test

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// noOpRequests is what a rerun with nothing to do costs against the GitHub
// API, whatever the number of updates, for up to 100 open pull requests
// (GitHub's largest page): the repository (for its default branch) and one
// page of open pull requests. docs/pull-requests.md states this number.
const noOpRequests = 2

// fleet is a repository of n services, each on its own image at 1.0.0
// while the registry also has 1.1.0: n updates, n pull requests.
func fleet(t *testing.T, n int) (map[string][]byte, map[string]string) {
	t.Helper()
	reg := registrytest.NewServer(t)
	created := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	files := map[string][]byte{"README.md": []byte("services\n")}
	for i := range n {
		repo := fmt.Sprintf("acme/svc-%03d", i)
		for _, tag := range []string{"1.0.0", "1.1.0"} {
			reg.Push(t, repo, tag, registrytest.Image(t, repo+":"+tag, created, nil))
		}
		files[fmt.Sprintf("services/svc-%03d.yaml", i)] = fmt.Appendf(nil,
			"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: svc-%03d\nspec:\n  template:\n    spec:\n      containers:\n        - name: app\n          image: %s/%s:1.0.0\n",
			i, reg.Host(), repo)
	}
	return files, nil
}

// TestNoOpRerunCost: a rerun with nothing to do costs the same few API
// requests whatever the number of updates (before, one closed-PR listing
// per update), but for one page of open PRs per page of the host's, and
// writes and pushes nothing. Pages of 2 make 2 and 5 updates take 1 (a
// full one: no empty page is asked for after it) and 3 pages, so that both
// the fixed part and the per-page part are counted exactly with a few PRs:
// one more request per update would be 2 and 5 more. noOpRequests states the fixed part at the host's own page size,
// and the listing is seen to ask for that size (before, 51 updates were
// opened to see two pages of 50 on Gitea and Bitbucket).
func TestNoOpRerunCost(t *testing.T) {
	t.Parallel()
	const perPage = 2
	eachHost(t, func(t *testing.T, on worldOption) {
		for _, n := range []int{2, 5} {
			t.Run(fmt.Sprintf("%d updates", n), func(t *testing.T) {
				t.Parallel()
				w := newWorld(t, on, withPerPage(perPage), withRepo(fleet(t, n)))
				res := w.runClean(t)
				if len(res.Opened) != n {
					t.Fatalf("first run opened %d PRs, want %d", len(res.Opened), n)
				}
				before, requests := w.counters(), w.host.requests()
				o := w.options(t)
				asked := &pageSizes{}
				o.HTTPClient = &http.Client{Transport: asked}
				res = w.runAs(t, o)
				for _, err := range res.Failed {
					t.Errorf("failed: %v", err)
				}
				// Pages of 2 are the fake's largest: the bot asks for its
				// host's largest (50 or 100), as a real host's are, wherever
				// it names a page size.
				if len(asked.sizes) > 0 && slices.Min(asked.sizes) < 50 {
					t.Errorf("the rerun asked for pages of %v; want the host's largest, at least 50", asked.sizes)
				}
				// noOpRequests(1) is the fixed part and one page.
				pages := perPage
				if f, ok := w.host.(fixedPages); ok {
					pages = f.fixedPageSize()
				}
				want := w.host.noOpRequests(1) - 1 + (n+pages-1)/pages
				if got := w.host.requests() - requests; got != want {
					t.Errorf("no-op rerun made %d API requests, want %d", got, want)
				}
				if after := w.counters(); after != before {
					t.Errorf("no-op rerun wrote: %+v -> %+v", before, after)
				}
				if len(res.Unchanged) != n {
					t.Errorf("%d unchanged, want %d", len(res.Unchanged), n)
				}
			})
		}
	})
}

// fixedPages is a host whose fake cannot be made to answer in pages of
// the world's size (withPerPage), as the real host cannot: its listings
// are as long as the client asks.
type fixedPages interface{ fixedPageSize() int }

// pageSizes records the page size each API request asks for, whatever the
// host calls it.
type pageSizes struct {
	mu    sync.Mutex
	sizes []int
}

func (p *pageSizes) RoundTrip(r *http.Request) (*http.Response, error) {
	for _, k := range []string{"per_page", "limit", "pagelen", "$top"} {
		if v := r.URL.Query().Get(k); v != "" {
			n, _ := strconv.Atoi(v)
			p.mu.Lock()
			p.sizes = append(p.sizes, n)
			p.mu.Unlock()
		}
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestDeclineLookupCost: the closed PRs that say "declined" are asked for
// only where no open PR already proposes the update, at the lower of one
// filtered listing per branch or one listing of all closed PRs. Who the
// bot is, so that only its own closed PRs count, costs nothing more: the
// world's installation token says so.
func TestDeclineLookupCost(t *testing.T) {
	t.Parallel()
	// Pages of 5 make the fake's 17 PRs span pages.
	w := newWorld(t, withPerPage(5))
	w.runClean(t)
	prs := w.openPRs()
	openPages := (len(prs) + 4) / 5

	// One declined stream: its branch alone is asked about.
	if err := w.host.close(prs[kubectl].Number); err != nil {
		t.Fatal(err)
	}
	requests := w.host.requests()
	res := w.runClean(t)
	diffSets(t, "declined", res.Declined, []string{kubectl})
	if got, want := w.host.requests()-requests, 1+openPages+1; got != want {
		t.Errorf("%d requests with one declined stream, want %d", got, want)
	}

	// Eight declined streams: listing the nine closed PRs (two pages) is
	// cheaper than eight branch listings.
	declined := []string{kubectl}
	for _, s := range streams[1:8] {
		if err := w.host.close(prs[s.Branch].Number); err != nil {
			t.Fatal(err)
		}
		declined = append(declined, s.Branch)
	}
	requests = w.host.requests()
	res = w.runClean(t)
	diffSets(t, "declined", res.Declined, declined)
	openPages = (len(streams) - len(declined) + 4) / 5
	if got, want := w.host.requests()-requests, 1+openPages+2; got != want {
		t.Errorf("%d requests with %d declined streams, want %d", got, len(declined), want)
	}
	if strings.Contains(w.logs.String(), "status="+fmt.Sprint(http.StatusNotFound)) {
		t.Errorf("a lookup went astray:\n%s", w.logs.String())
	}

	// GitHub fails the closed listing, every retry too: the declined
	// streams cannot be told apart from new ones, so they fail; the
	// streams whose open PR carries their update are still done.
	for range 4 {
		w.gh.FailNext(http.MethodGet, "state=closed", http.StatusBadGateway, nil)
	}
	before := w.counters()
	res = w.run(t)
	var failed []string
	for _, err := range res.Failed {
		b, _, _ := strings.Cut(err.Error(), ": ")
		failed = append(failed, b)
		if !strings.Contains(err.Error(), "list closed pull requests") {
			t.Errorf("failure %v, want the closed listing's", err)
		}
	}
	diffSets(t, "failed", failed, declined)
	diffSets(t, "unchanged", res.Unchanged, without(allBranches(), declined...))
	if after := w.counters(); after != before {
		t.Errorf("wrote: %+v -> %+v", before, after)
	}
}
