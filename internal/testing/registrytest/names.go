package registrytest

import (
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/imagebot/imagebot/internal/imagename"
)

// Repo parses a repository name as the scan parses a reference's name
// (imagename.Parse), so that a test asks the registry client with what
// the pipeline would. A name that does not parse fails the test.
func Repo(tb testing.TB, repo string) name.Repository {
	tb.Helper()
	r, err := imagename.Parse(repo)
	if err != nil {
		tb.Fatalf("repository %q: %v", repo, err)
	}
	return r
}

// Repos is Repo of each name.
func Repos(tb testing.TB, repos ...string) []name.Repository {
	tb.Helper()
	out := make([]name.Repository, len(repos))
	for i, r := range repos {
		out[i] = Repo(tb, r)
	}
	return out
}

// Tag is repo:tag, made as the plan makes one: the tag is not checked.
func Tag(tb testing.TB, repo, tag string) name.Tag {
	tb.Helper()
	return Repo(tb, repo).Tag(tag)
}

// Digest is repo@digest, made as the plan makes one: the digest is not
// checked.
func Digest(tb testing.TB, repo, digest string) name.Digest {
	tb.Helper()
	return Repo(tb, repo).Digest(digest)
}

// Ref is repo@ref when ref is a digest ("sha256:..."), else repo:ref.
func Ref(tb testing.TB, repo, ref string) name.Reference {
	tb.Helper()
	if strings.Contains(ref, ":") {
		return Digest(tb, repo, ref)
	}
	return Tag(tb, repo, ref)
}
