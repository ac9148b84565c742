package signature

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/tuf"
	"github.com/theupdateframework/go-tuf/v2/metadata/fetcher"
)

// tufTimeout bounds each TUF metadata or target download.
const tufTimeout = 30 * time.Second

// TUF names a TUF repository that publishes a Sigstore trusted root
// (trusted_root.json): its base URL and the root.json a client first
// trusts. The zero TUF is the public-good instance, whose root.json
// sigstore-go embeds.
type TUF struct {
	URL  string
	Root []byte
}

// TrustedRoot returns the trusted material (Fulcio CAs, Rekor and CT log
// keys, timestamp authorities) of the Sigstore instance that repo
// publishes: the public-good one for the zero TUF, the trust behind
// keyless signatures made on GitHub Actions and elsewhere; a private
// deployment's or a test's otherwise. It is obtained with TUF as cosign
// does: from repo's root.json (for the public-good instance, the one
// embedded in sigstore-go), updated from the repository, and kept in
// cacheDir (the run's cache directory; "" keeps nothing), which is trusted
// without network for a day. Only keyless policies need it.
func TrustedRoot(ctx context.Context, repo TUF, cacheDir string) (root.TrustedMaterial, error) {
	opts := tuf.DefaultOptions()
	if repo.URL != "" {
		if len(repo.Root) == 0 {
			return nil, fmt.Errorf("sigstore trusted root from %s: no root.json to start from", repo.URL)
		}
		opts = opts.WithRepositoryBaseURL(repo.URL).WithRoot(repo.Root)
	}
	tr, err := fetchTrustedRoot(ctx, opts, cacheDir)
	if err != nil {
		// Never a nil *TrustedRoot in a non-nil interface.
		return nil, err
	}
	return tr, nil
}

// fetchTrustedRoot gets trusted_root.json from the TUF repository opts
// names, every download bounded by ctx and tufTimeout.
func fetchTrustedRoot(ctx context.Context, opts *tuf.Options, cacheDir string) (*root.TrustedRoot, error) {
	opts.CachePath = cacheDir
	opts.DisableLocalCache = cacheDir == ""
	// A rotation of the public-good keys is announced weeks ahead; a day's
	// cache spares each run the TUF round trips.
	opts.CacheValidity = 1
	f := fetcher.NewDefaultFetcher()
	f.SetHTTPUserAgent("imagebot")
	f.SetHTTPClient(ctxClient{ctx: ctx, c: &http.Client{Timeout: tufTimeout}})
	opts.Fetcher = f
	opts.Context = ctx
	tr, err := root.FetchTrustedRootWithOptions(opts)
	if err != nil {
		return nil, fmt.Errorf("sigstore trusted root from %s (cache %q): %w", opts.RepositoryBaseURL, cacheDir, err)
	}
	return tr, nil
}

// ctxClient gives every TUF request the caller's context: go-tuf's fetcher
// makes its requests without one.
type ctxClient struct {
	ctx context.Context
	c   *http.Client
}

func (c ctxClient) Do(r *http.Request) (*http.Response, error) { return c.c.Do(r.WithContext(c.ctx)) }
