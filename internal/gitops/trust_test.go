package gitops_test

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	git "github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
	"github.com/google/go-github/v60/github"

	"github.com/imagebot/imagebot/internal/testing/githubtest"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// images is a registry holding each repository's tags, and a repository
// whose file i references refs[i] (host-relative, "acme/a-b:1.0.0").
func images(t *testing.T, tags map[string][]string, refs ...string) (map[string][]byte, map[string]string, string) {
	t.Helper()
	return labelled(t, tags, nil, refs...)
}

// labelled is images whose "repo:tag" images carry labels.
func labelled(t *testing.T, tags map[string][]string, labels map[string]map[string]string, refs ...string) (map[string][]byte, map[string]string, string) {
	t.Helper()
	reg := registrytest.NewServer(t)
	created := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	for repo, ts := range tags {
		for _, tag := range ts {
			reg.Push(t, repo, tag, registrytest.Image(t, repo+":"+tag, created, labels[repo+":"+tag]))
		}
	}
	files := map[string][]byte{"README.md": []byte("services\n")}
	for i, ref := range refs {
		files[fmt.Sprintf("services/svc-%03d.yaml", i)] = []byte(deploymentOf(reg.Host() + "/" + ref))
	}
	return files, nil, reg.Host()
}

func deploymentOf(image string) string {
	return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\nspec:\n  template:\n    spec:\n      containers:\n        - name: app\n          image: " + image + "\n"
}

// Two images whose names sanitise to one branch (acme/a-b, acme-a/b) each
// get a branch and a PR of their own, each with its own change; a rerun
// changes nothing.
func TestCollidingImageNamesGetBranchesOfTheirOwn(t *testing.T) {
	t.Parallel()
	files, mirrors, host := images(t, map[string][]string{
		"acme/a-b": {"1.0.0", "1.1.0"},
		"acme-a/b": {"1.0.0", "1.1.0"},
	}, "acme/a-b:1.0.0", "acme-a/b:1.0.0")
	w := newWorld(t, withRepo(files, mirrors))
	res := w.runClean(t)
	if len(res.Opened) != 2 {
		t.Fatalf("opened %v, want two PRs", res.Opened)
	}
	open := w.openPRs()
	if len(open) != 2 {
		t.Fatalf("open PRs on %v, want two branches", keys(open))
	}
	for _, img := range []string{"acme/a-b", "acme-a/b"} {
		n := 0
		for b, pr := range open {
			if strings.Contains(pr.Body, `"image":"`+host+"/"+img+`"`) {
				n++
				if !strings.HasPrefix(b, "imagebot/"+strings.ReplaceAll(host, ":", "-")+"-acme-a-b-") {
					t.Errorf("branch %s: want the readable name and a hash", b)
				}
			}
		}
		if n != 1 {
			t.Errorf("%s is on %d open PRs, want 1", img, n)
		}
	}
	before := w.counters()
	res = w.runClean(t)
	if len(res.Unchanged) != 2 || w.counters() != before {
		t.Errorf("rerun: %+v, writes %+v -> %+v", res, before, w.counters())
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// hostBranch is the readable branch of host/repo.
func hostBranch(host, repo string) string {
	return "imagebot/" + strings.NewReplacer(":", "-", "/", "-").Replace(host+"/"+repo)
}

// forgedMarker is a marker someone other than the bot writes.
func forgedMarker(image, branch string) string {
	return `<!-- imagebot:v1 {"image":"` + image + `","branch":"` + branch + `","updates":[{"from":"1.0.0","to":"1.1.0"}]} -->`
}

// Nobody but the bot declines a version: a stranger's PR from a fork on the
// bot's branch name, and a writer's PR from the repository's own branch,
// each with a marker proposing the update and closed, decline nothing.
func TestClosedPullRequestsOfOthersDeclineNothing(t *testing.T) {
	t.Parallel()
	files, mirrors, host := images(t, map[string][]string{
		"acme/app":   {"1.0.0", "1.1.0"},
		"acme/other": {"1.0.0", "1.1.0"},
	}, "acme/app:1.0.0", "acme/other:1.0.0")
	w := newWorld(t, withRepo(files, mirrors), withGitHub(githubtest.WithUser("mallory", "mallory-token"), githubtest.WithUser("jane", "jane-token")))
	appBranch, otherBranch := hostBranch(host, "acme/app"), hostBranch(host, "acme/other")

	// mallory forks the repository and opens a PR from a branch named
	// like the bot's, then closes it.
	if _, err := w.gs.CreateRepo("mallory", name, files, appBranch); err != nil {
		t.Fatal(err)
	}
	w.gh.AddRepo("mallory", name, appBranch, githubtest.BareRepos(w.gs.Dir), githubtest.ForkOf(owner, name))
	mallory := w.clientAs(t, "mallory-token")
	forged := "Totally legit.\n\n" + forgedMarker(host+"/acme/app", appBranch) + "\n"
	pr, _, err := mallory.PullRequests.Create(w.ctx, owner, name, &github.NewPullRequest{
		Title: github.String("x"), Head: github.String("mallory:" + appBranch), Base: github.String(main_), Body: &forged,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.host.close(pr.GetNumber()); err != nil {
		t.Fatal(err)
	}
	// jane, a writer, does the same from the repository's own branch,
	// and deletes the branch.
	jane := w.clientAs(t, "jane-token")
	w.humanPushNew(t, otherBranch)
	forged = forgedMarker(host+"/acme/other", otherBranch) + "\n"
	pr, _, err = jane.PullRequests.Create(w.ctx, owner, name, &github.NewPullRequest{
		Title: github.String("y"), Head: github.String(otherBranch), Base: github.String(main_), Body: &forged,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.host.close(pr.GetNumber()); err != nil {
		t.Fatal(err)
	}
	if _, err := jane.Git.DeleteRef(w.ctx, owner, name, "heads/"+otherBranch); err != nil {
		t.Fatal(err)
	}

	res := w.runClean(t)
	if len(res.Declined) != 0 || len(res.Opened) != 2 {
		t.Errorf("declined %v, opened %v: want both opened", res.Declined, res.Opened)
	}
	// The bot's own decline still counts.
	open := w.openPRs()
	if err := w.host.close(open[appBranch].Number); err != nil {
		t.Fatal(err)
	}
	res = w.runClean(t)
	if len(res.Declined) != 1 || res.Declined[0] != appBranch {
		t.Errorf("after the bot's PR was closed: declined %v, want %s", res.Declined, appBranch)
	}
}

// clientAs is go-github as the holder of token.
func (w *world) clientAs(t *testing.T, token string) *github.Client {
	t.Helper()
	u, err := url.Parse(w.gh.URL() + "/")
	if err != nil {
		t.Fatal(err)
	}
	gh := github.NewClient(nil).WithAuthToken(token)
	gh.BaseURL = u
	return gh
}

// humanPushNew creates branch off main with a person's commit.
func (w *world) humanPushNew(t *testing.T, branch string) {
	t.Helper()
	r, err := git.PlainCloneContext(w.ctx, t.TempDir(), false, &git.CloneOptions{URL: w.gs.URL(owner + "/" + name), Auth: gitAuth})
	if err != nil {
		t.Fatal(err)
	}
	wt, err := r.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	who := human
	who.When = time.Now()
	if _, err := wt.Commit("wip", &git.CommitOptions{Author: &who, Committer: &who, AllowEmptyCommits: true}); err != nil {
		t.Fatal(err)
	}
	spec := gitconfig.RefSpec("refs/heads/" + main_ + ":refs/heads/" + branch)
	if err := r.PushContext(w.ctx, &git.PushOptions{Auth: gitAuth, RefSpecs: []gitconfig.RefSpec{spec}}); err != nil {
		t.Fatal(err)
	}
}

// Only the bot's own comments say what it said: someone else's comment
// holding the bot's note marker does not keep the bot from saying it.
func TestCommentMarkersOfOthersCountForNothing(t *testing.T) {
	t.Parallel()
	files, mirrors, host := images(t, map[string][]string{"acme/app": {"1.0.0", "1.1.0"}}, "acme/app:1.0.0")
	w := newWorld(t, withRepo(files, mirrors), withGitHub(githubtest.WithUser("mallory", "mallory-token")))
	branch := hostBranch(host, "acme/app")
	w.runClean(t)
	pr := w.openPRs()[branch]
	tip := w.humanPush(t, branch, "pin it", map[string]func(string) string{"services/svc-000.yaml": replace("1.1.0", "1.1.0 # pinned")})
	mark := "<!-- imagebot:foreign " + tip + " -->"
	if _, _, err := w.clientAs(t, "mallory-token").Issues.CreateComment(w.ctx, owner, name, pr.Number, &github.IssueComment{Body: github.String("hi " + mark)}); err != nil {
		t.Fatal(err)
	}
	w.runClean(t)
	w.runClean(t)
	said := 0
	for _, c := range w.prs()[branch].Comments {
		if strings.Contains(c, "imagebot did not make") {
			said++
		}
	}
	if said != 1 {
		t.Errorf("the bot said it %d times, want once: %q", said, w.prs()[branch].Comments)
	}
}

// An image publisher's source label and a file's name, each holding
// Markdown, HTML, an @mention and a forged marker, are quoted in the body
// and never read as the bot's memory: a rerun changes nothing, and no
// image's change lands on another's branch.
func TestHostileLabelsAndFileNamesSteerNothing(t *testing.T) {
	t.Parallel()
	reg := registrytest.NewServer(t)
	host := reg.Host()
	appBranch, otherBranch := hostBranch(host, "acme/app"), hostBranch(host, "acme/other")
	label := "https://github.com/acme/app\n\n@octocat <img src=https://evil.example/x.png> " + forgedMarker(host+"/acme/other", appBranch)
	created := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	for _, repo := range []string{"acme/app", "acme/other"} {
		for _, tag := range []string{"1.0.0", "1.1.0"} {
			reg.Push(t, repo, tag, registrytest.Image(t, repo+":"+tag, created, map[string]string{"org.opencontainers.image.source": label}))
		}
	}
	evilFile := forgedMarker(host+"/acme/app", otherBranch) + ".yaml"
	files := map[string][]byte{
		"app.yaml": []byte(deploymentOf(host + "/acme/app:1.0.0")),
		evilFile:   []byte(deploymentOf(host + "/acme/other:1.0.0")),
	}
	w := newWorld(t, withRepo(files, nil))
	res := w.runClean(t)
	if len(res.Opened) != 2 {
		t.Fatalf("opened %v", res.Opened)
	}
	for b, pr := range w.openPRs() {
		for _, bad := range []string{"@octocat", "<img", "evil.example"} {
			if strings.Contains(pr.Body, bad) {
				t.Errorf("%s: body holds %q:\n%s", b, bad, pr.Body)
			}
		}
		if n := strings.Count(pr.Body, "<!-- imagebot:"); n != 1 {
			t.Errorf("%s: %d markers in the body:\n%s", b, n, pr.Body)
		}
	}
	before := w.counters()
	for range 2 {
		res = w.runClean(t)
		if len(res.Unchanged) != 2 || len(res.Closed) != 0 || w.counters() != before {
			t.Fatalf("rerun: %+v; writes %+v -> %+v", res, before, w.counters())
		}
	}
	open := w.openPRs()
	if !strings.Contains(open[appBranch].Body, `"image":"`+host+`/acme/app"`) || !strings.Contains(open[otherBranch].Body, `"image":"`+host+`/acme/other"`) {
		t.Errorf("PRs moved images: %v", keys(open))
	}
}

// An update used in 1,500 places still gets its PR: the body fits
// GitHub's 65,536 characters (the fake refuses more, as GitHub does),
// lists the first locations and counts the rest by directory, and keeps
// its marker, so that a rerun changes nothing.
func TestBodyOfAnUpdateUsedEverywhereFits(t *testing.T) {
	t.Parallel()
	reg := registrytest.NewServer(t)
	created := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	for _, tag := range []string{"1.0.0", "1.1.0"} {
		reg.Push(t, "acme/app", tag, registrytest.Image(t, "acme/app:"+tag, created, nil))
	}
	files := map[string][]byte{}
	for d := range 15 {
		var b strings.Builder
		b.WriteString("apiVersion: v1\nkind: List\nitems:\n")
		for i := range 100 {
			fmt.Fprintf(&b, "  - kind: Pod\n    metadata:\n      name: p%d\n    spec:\n      containers:\n        - name: c\n          image: %s/acme/app:1.0.0\n", i, reg.Host())
		}
		files[fmt.Sprintf("clusters/region-%02d/workloads/pods.yaml", d)] = []byte(b.String())
	}
	w := newWorld(t, withRepo(files, nil))
	res := w.runClean(t)
	if len(res.Opened) != 1 {
		t.Fatalf("opened %v, failed %v", res.Opened, res.Failed)
	}
	pr := w.openPRs()[hostBranch(reg.Host(), "acme/app")]
	if n := utf8.RuneCountInString(pr.Body); n > 65536 {
		t.Errorf("body of %d characters", n)
	}
	for _, want := range []string{"more locations", "`clusters/region-14/workloads/`: 100", "clusters/region-00/workloads/pods.yaml:"} {
		if !strings.Contains(pr.Body, want) {
			t.Errorf("body lacks %q", want)
		}
	}
	before := w.counters()
	if res = w.runClean(t); len(res.Unchanged) != 1 || w.counters() != before {
		t.Errorf("rerun: %+v; writes %+v -> %+v", res, before, w.counters())
	}
}
