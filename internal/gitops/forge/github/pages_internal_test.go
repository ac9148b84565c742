package github

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
)

// A comment listing whose Link points back (a broken proxy, a host's bug)
// is an error, as every listing's is (forge.Pages), instead of asking the
// same page until the run's deadline.
func TestGitHubCommentsLinkBack(t *testing.T) {
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		page := r.URL.Query().Get("page")
		if page == "" {
			page = "1"
		}
		// Page 2 says its next page is page 1.
		next := "2"
		if page == "2" {
			next = "1"
		}
		w.Header().Set("Link", fmt.Sprintf(`<%s%s?page=%s>; rel="next"`, "http://"+r.Host, r.URL.Path, next))
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `[{"body":"nothing here","user":{"login":"bot"}}]`)
	}))
	defer srv.Close()
	gh := github.NewClient(srv.Client())
	gh.BaseURL, _ = url.Parse(srv.URL + "/")
	h := &hub{gh: gh, owner: "o", name: "r"}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	found, err := h.Commented(ctx, 1, "<!-- mark -->", func(string) bool { return true })
	if err == nil || found || !strings.Contains(err.Error(), "list comments of #1: page 2 links back to page 1") {
		t.Errorf("Commented = %v, %v; want false and a link-back error", found, err)
	}
	if n := asked.Load(); n != 2 {
		t.Errorf("%d requests, want 2 (page 1, then page 2, whose Link points back)", n)
	}
}
