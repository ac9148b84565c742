package azure_test

import (
	"context"
	"testing"
	"time"

	"github.com/go-git/go-billy/v5/memfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/go-git/go-git/v5/storage/memory"

	"github.com/imagebot/imagebot/internal/gitops/forge/azure"
	"github.com/imagebot/imagebot/internal/testing/gittest"
)

// TestFetchFromAzureRepos: with the driver's workaround (AllowMultiACK,
// which opening an Azure DevOps repository applies), go-git clones from a
// server that refuses fetches without multi_ack, as Azure Repos does, and
// fetches again with haves, what each later run does.
func TestFetchFromAzureRepos(t *testing.T) {
	azure.AllowMultiACK()
	s, err := gittest.New(gittest.TempDir(t), "pat")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.RequireMultiACK()
	if _, err := s.CreateRepo("contoso", "deploy", map[string][]byte{"a.yaml": []byte("image: a:1\n")}, "main"); err != nil {
		t.Fatal(err)
	}
	auth := &githttp.BasicAuth{Username: "imagebot", Password: "pat"}
	ctx := context.Background()
	a, err := git.CloneContext(ctx, memory.NewStorage(), nil, &git.CloneOptions{URL: s.URL("contoso/deploy"), Auth: auth})
	if err != nil {
		t.Fatalf("clone: %v", err)
	}
	// Someone else pushes a commit.
	fs := memfs.New()
	b, err := git.CloneContext(ctx, memory.NewStorage(), fs, &git.CloneOptions{URL: s.URL("contoso/deploy"), Auth: auth})
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := b.Worktree()
	f, _ := fs.Create("b.yaml")
	f.Write([]byte("image: b:1\n"))
	f.Close()
	wt.Add("b.yaml")
	sig := &object.Signature{Name: "j", Email: "j@x", When: time.Unix(1, 0)}
	tip, err := wt.Commit("b", &git.CommitOptions{Author: sig, Committer: sig})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.PushContext(ctx, &git.PushOptions{Auth: auth}); err != nil {
		t.Fatal(err)
	}
	if err := a.FetchContext(ctx, &git.FetchOptions{Auth: auth}); err != nil {
		t.Fatalf("fetch with haves: %v", err)
	}
	if _, err := a.CommitObject(tip); err != nil {
		t.Errorf("the fetched commit: %v", err)
	}
}
