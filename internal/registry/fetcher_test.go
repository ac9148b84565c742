package registry_test

import (
	"crypto/ecdsa"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/imagebot/imagebot/internal/gate/inspect"
	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/signature"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// The Client is the signature check's Fetcher, and the gates' inspector's
// registry.
var (
	_ signature.Fetcher = (*registry.Client)(nil)
	_ inspect.Registry  = (*registry.Client)(nil)
)

func newKey(t *testing.T) (*ecdsa.PrivateKey, *signature.Verifier) {
	t.Helper()
	priv, pub := registrytest.NewKey(t)
	v, err := signature.NewVerifier(signature.Policy{Key: pub}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return priv, v
}

// TestFetcherVerifies checks the Client as the signature check's Fetcher
// against a real registry: a signed, an unsigned and a wrongly signed
// digest, with and without the referrers API, each read once per run.
func TestFetcherVerifies(t *testing.T) {
	key, v := newKey(t)
	other, _ := newKey(t)
	for _, api := range []bool{false, true} {
		var opts []registrytest.Option
		if api {
			opts = append(opts, registrytest.WithReferrersAPI())
		}
		srv := registrytest.NewServer(t, opts...)
		signed := srv.Push(t, "acme/api", "1.0.0", registrytest.Image(t, "signed", created, nil))
		unsigned := srv.Push(t, "acme/api", "1.1.0", registrytest.Image(t, "unsigned", created, nil))
		wrong := srv.Push(t, "acme/api", "1.2.0", registrytest.Image(t, "wrong", created, nil))
		srv.SignWithKey(t, "acme/api", signed, key)
		srv.SignWithKey(t, "acme/api", wrong, other)
		c := newClient(viaMirror(srv))
		ctx := t.Context()

		ev, err := v.Verify(ctx, c, registrytest.Digest(t, "ghcr.io/acme/api", signed))
		if err != nil || ev.Method != signature.MethodSigTag {
			t.Errorf("api %v: signed: %+v, %v", api, ev, err)
		}
		if _, err := v.Verify(ctx, c, registrytest.Digest(t, "ghcr.io/acme/api", unsigned)); !errors.Is(err, signature.ErrUnsigned) {
			t.Errorf("api %v: unsigned: %v, want ErrUnsigned", api, err)
		}
		if _, err := v.Verify(ctx, c, registrytest.Digest(t, "ghcr.io/acme/api", wrong)); !errors.Is(err, signature.ErrRejected) {
			t.Errorf("api %v: another key: %v, want ErrRejected", api, err)
		}
		_, err = c.Referrers(ctx, registrytest.Digest(t, "ghcr.io/acme/api", unsigned), "")
		if api == errors.Is(err, signature.ErrNoReferrersAPI) {
			t.Errorf("api %v: Referrers = %v", api, err)
		}

		before := len(srv.Requests())
		for _, d := range []string{signed, unsigned, wrong} {
			v.Verify(ctx, c, registrytest.Digest(t, "ghcr.io/acme/api", d))
		}
		if n := len(srv.Requests()) - before; n != 0 {
			t.Errorf("api %v: verifying again cost %d requests, want none", api, n)
		}
		st := c.Stats()[0]
		if st.Referrers == 0 || st.ManifestGet == 0 || st.Blob == 0 {
			t.Errorf("api %v: Stats %+v: signature reads are counted by kind", api, st)
		}
	}
}

// TestFetcherCaps: a manifest over Limits.ManifestBytes is refused before
// it is read, whatever asks for it.
func TestFetcherCaps(t *testing.T) {
	srv := registrytest.NewServer(t)
	d := srv.Push(t, "acme/api", "1.0.0", registrytest.Image(t, "api", created, nil))
	srv.Break("/manifests/", registrytest.HugeBody, 0)
	c := newClient(viaMirror(srv))
	if _, _, err := c.Manifest(t.Context(), registrytest.Tag(t, "ghcr.io/acme/api", registrytest.SigTag(d))); err == nil || errors.Is(err, signature.ErrNotFound) || !strings.Contains(err.Error(), "over the 4 MiB allowed") {
		t.Errorf("huge manifest: %v, want a cap error, not a missing signature", err)
	}
	if n := srv.Count(http.MethodGet, "/manifests/"); n != 1 {
		t.Errorf("%d GETs, want 1", n)
	}
}
