package signature_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"

	"github.com/imagebot/imagebot/internal/signature"
)

// remoteFetcher is the test Fetcher: go-containerregistry's remote for
// manifests and blobs, a plain GET for the referrers endpoint (remote
// hides whether the API exists). internal/registry's client is the
// production one.
type remoteFetcher struct{ puller *remote.Puller }

var _ signature.Fetcher = remoteFetcher{}

func newFetcher() remoteFetcher {
	// No retries: they would sleep, and faults are injected on purpose.
	p, err := remote.NewPuller(remote.WithRetryStatusCodes(), remote.WithRetryBackoff(remote.Backoff{Steps: 1}))
	if err != nil {
		panic(err)
	}
	return remoteFetcher{puller: p}
}

func (f remoteFetcher) Manifest(ctx context.Context, ref name.Reference) ([]byte, string, error) {
	d, err := f.puller.Get(ctx, ref)
	if err != nil {
		return nil, "", notFound(err)
	}
	return d.Manifest, string(d.MediaType), nil
}

func (f remoteFetcher) Blob(ctx context.Context, ref name.Digest) ([]byte, error) {
	l, err := f.puller.Layer(ctx, ref)
	if err != nil {
		return nil, notFound(err)
	}
	rc, err := l.Compressed()
	if err != nil {
		return nil, notFound(err)
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

func (f remoteFetcher) Referrers(ctx context.Context, ref name.Digest, artifactType string) ([]byte, error) {
	r := ref.Context()
	u := fmt.Sprintf("%s://%s/v2/%s/referrers/%s?artifactType=%s", r.Scheme(), r.RegistryStr(), r.RepositoryStr(), ref.DigestStr(), url.QueryEscape(artifactType))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		return io.ReadAll(resp.Body)
	case http.StatusNotFound:
		return nil, signature.ErrNoReferrersAPI
	}
	return nil, fmt.Errorf("GET %s: %s", u, resp.Status)
}

func notFound(err error) error {
	var te *transport.Error
	if errors.As(err, &te) && te.StatusCode == http.StatusNotFound {
		return fmt.Errorf("%w: %v", signature.ErrNotFound, err)
	}
	return err
}

func mustManifest(t testing.TB, body []byte) *v1.Manifest {
	t.Helper()
	m, err := v1.ParseManifest(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return m
}
