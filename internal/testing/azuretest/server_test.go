package azuretest

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/testing/forgetest"
)

// TestAnswers: what the driver never provokes, checked directly: no
// api-version is a 400, no credentials the sign-in page (203), a PAT sent
// as Bearer a 401, refs page by continuation token.
func TestAnswers(t *testing.T) {
	s := New(WithRefPage(1))
	defer s.Close()
	s.SetBranch("x", strings.Repeat("1", 40))
	get := func(path, auth string) *http.Response {
		req, _ := http.NewRequest("GET", s.URL()+"/"+strings.ReplaceAll(Project, " ", "%20")+"/_apis/git/repositories/"+Repo+path, nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte(":"+DefaultToken))
	for _, tc := range []struct {
		path, auth string
		status     int
		token      bool
	}{
		{"?api-version=7.1", basic, 200, false},
		{"", basic, 400, false},
		{"?api-version=7.1", "", 203, false},
		{"?api-version=7.1", "Basic " + base64.StdEncoding.EncodeToString([]byte(":"+ExpiredToken)), 203, false},
		{"?api-version=7.1", "Bearer " + DefaultToken, 401, false},
		{"?api-version=7.1", "Bearer " + PipelineToken, 200, false},
		{"/refs?api-version=7.1&filter=heads/", basic, 200, true},
	} {
		resp := get(tc.path, tc.auth)
		if resp.StatusCode != tc.status || (resp.Header.Get("x-ms-continuationtoken") != "") != tc.token {
			t.Errorf("%s %.12s: %d, token %q", tc.path, tc.auth, resp.StatusCode, resp.Header.Get("x-ms-continuationtoken"))
		}
	}
}

// recordingGit is a GitBackend that records the merges asked of it.
type recordingGit struct{ merges []forgetest.MergeRequest }

func (g *recordingGit) BranchSHA(_, _, branch string) (string, bool) {
	return strings.Repeat("b", 40), true
}
func (g *recordingGit) Compare(_, _, _, _ string) (forgetest.Comparison, error) {
	return forgetest.Comparison{}, nil
}
func (g *recordingGit) DeleteBranch(_, _, _ string) error { return nil }
func (g *recordingGit) Merge(_, _ string, m forgetest.MergeRequest) (string, error) {
	g.merges = append(g.merges, m)
	return strings.Repeat("c", 40), nil
}

// TestPeopleOnTheFake: CompletePR merges at the fake's clock (a lead
// measured from a merge is the test's time, not the wall's); a person's
// pull request from a fork is listed with its forkSource and its
// description; a team is found as [project]\name in the repository's
// project, whatever WithGit names it.
func TestPeopleOnTheFake(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	git := &recordingGit{}
	s := New(WithClock(func() time.Time { return at }), WithGit(git, "acme", "app"))
	defer s.Close()
	own := s.OpenPR(Human, "feature", "main", "mine")
	if err := s.CompletePR(own.ID); err != nil {
		t.Fatal(err)
	}
	if len(git.merges) != 1 || !git.merges[0].When.Equal(at) {
		t.Errorf("merges %+v, want one at %v", git.merges, at)
	}

	s.OpenPRFrom(Human, "app-fork", "imagebot/x", "main", "from a fork", "Totally legit.\n")
	get := func(path string, v any) {
		t.Helper()
		req, _ := http.NewRequest("GET", s.URL()+path, nil)
		req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(":"+DefaultToken)))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatal(err)
		}
	}
	var prs struct {
		Value []struct {
			Description string
			ForkSource  *struct{ Name string }
		}
	}
	get("/acme/_apis/git/repositories/app/pullrequests?api-version=7.1", &prs)
	if len(prs.Value) != 1 || prs.Value[0].ForkSource == nil || prs.Value[0].ForkSource.Name != "refs/heads/imagebot/x" ||
		prs.Value[0].Description != "Totally legit.\n" {
		t.Errorf("listed %+v, want the fork's PR with its forkSource and description", prs.Value)
	}

	// The bot's own PR from its branch of the same name is another
	// source: Azure DevOps keeps one active pull request per source
	// repository and branch.
	body := strings.NewReader(`{"sourceRefName":"refs/heads/imagebot/x","targetRefName":"refs/heads/main","title":"bot's"}`)
	req, _ := http.NewRequest("POST", s.URL()+"/acme/_apis/git/repositories/app/pullrequests?api-version=7.1", body)
	req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(":"+DefaultToken)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Errorf("the bot's PR beside a fork's of the same branch name: %d, want 201", resp.StatusCode)
	}

	var ids struct{ Value []struct{ ID string } }
	get("/_apis/identities?api-version=7.1&searchFilter=General&filterValue="+url.QueryEscape(`[acme]\platform`), &ids)
	if len(ids.Value) != 1 || ids.Value[0].ID != Team.ID {
		t.Errorf("[acme]\\platform: %+v, want the team", ids.Value)
	}
}
