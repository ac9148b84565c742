package signature

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"github.com/sigstore/sigstore-go/pkg/tuf"

	"github.com/imagebot/imagebot/internal/testing/sigstoretest"
)

func TestFetchTrustedRootThroughTUFAndCache(t *testing.T) {
	vs, err := ca.NewVirtualSigstore()
	if err != nil {
		t.Fatal(err)
	}
	repo := sigstoretest.NewRepo(t, vs)
	opts := func() *tuf.Options {
		return tuf.DefaultOptions().WithRoot(repo.Root()).WithRepositoryBaseURL(repo.URL())
	}
	cache := t.TempDir()

	got, err := fetchTrustedRoot(t.Context(), opts(), cache)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.RekorLogs()) != 1 || len(got.FulcioCertificateAuthorities()) != 1 {
		t.Fatalf("trusted root has %d Rekor logs and %d Fulcio CAs; want the repository's 1 and 1", len(got.RekorLogs()), len(got.FulcioCertificateAuthorities()))
	}
	if repo.Requests() == 0 {
		t.Fatal("the TUF repository was never asked")
	}

	// A second run within the cache validity works from the cache alone.
	repo.Close()
	if _, err := fetchTrustedRoot(t.Context(), opts(), cache); err != nil {
		t.Fatalf("from cache: %v", err)
	}
}

func TestFetchTrustedRootFailsClearly(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	_, err := fetchTrustedRoot(t.Context(), tuf.DefaultOptions().WithRepositoryBaseURL(srv.URL), "")
	if err == nil {
		t.Fatal("fetchTrustedRoot from an empty repository succeeded")
	}
	want := fmt.Sprintf("sigstore trusted root from %s", srv.URL)
	if got := err.Error(); len(got) < len(want) || got[:len(want)] != want {
		t.Fatalf("error %q does not start with %q", got, want)
	}
}
