package bitbucket_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/gitops/forge"
	"github.com/imagebot/imagebot/internal/gitops/forge/bitbucket"
	"github.com/imagebot/imagebot/internal/testing/bitbuckettest"
)

const dcRepo = "OPS/gitops"

func newDC(t *testing.T, opts ...bitbuckettest.DCOption) (*bitbuckettest.DataCenter, forge.Forge) {
	t.Helper()
	d := bitbuckettest.NewDataCenter(append([]bitbuckettest.DCOption{bitbuckettest.WithDCToken(token)}, opts...)...)
	t.Cleanup(d.Close)
	d.AddRepo("OPS", "gitops", "main")
	f, err := bitbucket.NewServer(context.Background(), forge.Config{APIURL: d.URL(), Repository: dcRepo, Token: token,
		MaxWait: time.Second, Clock: &clock{}})
	if err != nil {
		t.Fatal(err)
	}
	return d, f
}

// TestDataCenterLifecycle: open, a duplicate answered with the open one,
// edits at the right version (and again after another's edit made it
// stale), reviewers, a comment found, decline, auto-merge on a
// successful build, and the dashboard off.
func TestDataCenterLifecycle(t *testing.T) {
	d, f := newDC(t)
	ctx := context.Background()
	r := must(f.Repository(ctx))
	if r.DefaultBranch != "main" || !strings.HasSuffix(r.URL, "/projects/OPS/repos/gitops") {
		t.Fatalf("repository %+v", r)
	}
	if id := must(f.WhoAmI(ctx)); id.Login != bitbuckettest.DCUser {
		t.Fatalf("WhoAmI = %+v", id)
	}
	nc := forge.NewChange{Title: "Update nginx", Body: "b", Head: "imagebot/nginx", Base: "main"}
	c, created, err := f.CreateChange(ctx, nc)
	if err != nil || !created || c.Number != 1 || !c.OwnBranch || c.Author != bitbuckettest.DCUser {
		t.Fatalf("create = %+v %v %v", c, created, err)
	}
	again, created, err := f.CreateChange(ctx, nc)
	if err != nil || created || again.Number != 1 {
		t.Fatalf("duplicate = %+v %v %v", again, created, err)
	}
	title := "Update nginx to 1.27"
	if err := f.EditChange(ctx, 1, forge.ChangeEdit{Title: &title}); err != nil {
		t.Fatal(err)
	}
	// Someone else edits: the version the driver knows is stale.
	if err := f.RequestReviewers(ctx, 1, []string{"jane", "OPS/admins"}); err != nil {
		t.Fatal(err)
	}
	body := "new body"
	if err := f.EditChange(ctx, 1, forge.ChangeEdit{Body: &body}); err != nil {
		t.Fatal(err)
	}
	pr := d.PRs(dcRepo)[0]
	if pr.Title != title || pr.Desc != body || !slices.Equal(pr.Reviewers, []string{"jane"}) {
		t.Fatalf("after edits: %+v", pr)
	}
	if err := f.Comment(ctx, 1, "note <!-- m -->"); err != nil {
		t.Fatal(err)
	}
	if !must(f.Commented(ctx, 1, "<!-- m -->", func(l string) bool { return l == bitbuckettest.DCUser })) {
		t.Fatal("comment not found")
	}
	if err := f.EditChange(ctx, 1, forge.ChangeEdit{Close: true}); err != nil {
		t.Fatal(err)
	}
	closed := must(f.ClosedChanges(ctx, forge.Query{Base: "main"}, []string{"imagebot/nginx"}))
	if cs := closed["imagebot/nginx"]; len(cs) != 1 || cs[0].State != "closed" || cs[0].Merged {
		t.Fatalf("closed = %+v; want declined", cs)
	}
	if err := f.DeleteBranch(ctx, "imagebot/nginx"); err != nil || !slices.Equal(d.DeletedBranches(dcRepo), []string{"imagebot/nginx"}) {
		t.Fatalf("delete: %v %v", err, d.DeletedBranches(dcRepo))
	}

	c2, _, err := f.CreateChange(ctx, forge.NewChange{Title: "Update redis", Head: "imagebot/redis", Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.EnableAutoMerge(ctx, c2); err != nil {
		t.Fatal(err)
	}
	d.AddStatus(d.PRs(dcRepo)[1].FromCommit, bitbuckettest.Status{Key: "ci", State: "SUCCESSFUL"})
	if s := d.PRs(dcRepo)[1].State; s != "MERGED" {
		t.Fatalf("auto-merge after a green build: %s", s)
	}
	if st := must(f.Statuses(ctx, d.PRs(dcRepo)[1].FromCommit)); st["ci"] != "success" {
		t.Fatalf("statuses %v", st)
	}
	if _, err := f.FindIssue(ctx, bitbuckettest.DCUser, func([]*forge.Issue) *forge.Issue { return nil }); !errors.Is(err, forge.ErrNoIssueTracker) {
		t.Fatalf("dashboard: %v, want ErrNoIssueTracker (no setting turns issues on)", err)
	}
}

// TestDataCenterNoOpCost: a rerun with nothing to do costs the repository,
// its default branch and the pages of open pull requests (100 a page);
// who the bot is comes with the first answer.
func TestDataCenterNoOpCost(t *testing.T) {
	d, f := newDC(t, bitbuckettest.WithMaxLimit(2))
	for _, b := range []string{"imagebot/a", "imagebot/b", "feature/x", "imagebot/c"} {
		d.OpenPR(dcRepo, b, "main", b, bitbuckettest.DCUser, "")
	}
	ctx := context.Background()
	before := d.Requests()
	must(f.Repository(ctx))
	id := must(f.WhoAmI(ctx))
	open := must(f.Changes(ctx, forge.Query{State: "open", Prefix: "imagebot/", Base: "main", Author: id.Login}))
	if n := d.Requests() - before; n != 4 || len(open) != 3 || open[0].Head != "imagebot/a" {
		t.Fatalf("%d requests, %d open (%v); want 4 (2 + pages of 2) and 3 oldest first", n, len(open), open)
	}
}

// TestDataCenterGitUser: git's user is the token's, as the API's first
// answer named it: Data Center checks it against a personal token.
func TestDataCenterGitUser(t *testing.T) {
	_, f := newDC(t)
	must(f.Repository(context.Background()))
	if user, _ := f.GitCredentials(); user != bitbuckettest.DCUser {
		t.Fatalf("git user %q, want %q", user, bitbuckettest.DCUser)
	}
}
