package serve

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// issuer is a local OIDC issuer: a key pair made for the test, its
// OpenID configuration and JWKS served over httptest, counting requests.
type issuer struct {
	srv  *httptest.Server
	key  *rsa.PrivateKey
	hits int
}

func newIssuer(t *testing.T) *issuer {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	is := &issuer{key: key}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		is.hits++
		json.NewEncoder(w).Encode(map[string]string{"issuer": is.srv.URL, "jwks_uri": is.srv.URL + "/keys"})
	})
	mux.HandleFunc("/keys", func(w http.ResponseWriter, r *http.Request) {
		is.hits++
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k1", Algorithm: "RS256", Use: "sig"}}})
	})
	is.srv = httptest.NewServer(mux)
	t.Cleanup(is.srv.Close)
	return is
}

// token signs claims as the issuer does (RS256, kid k1), or with key and
// alg when given.
func (is *issuer) token(t *testing.T, claims map[string]any) string {
	t.Helper()
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: is.key}, (&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", "k1"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := jwt.Signed(sig).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestHookOIDC: a CI job's token from the configured issuer, for the
// audience, unexpired and with the configured claims, is accepted; every
// other is 401, and nothing is queued. The issuer's keys are fetched once.
func TestHookOIDC(t *testing.T) {
	is := newIssuer(t)
	now := time.Date(2026, 8, 20, 12, 0, 0, 0, time.UTC)
	s := hookServer(t, HookOptions{
		OIDC:  []OIDCIssuer{{Issuer: is.srv.URL, Audience: "imagebot", Claims: map[string]string{"repository_owner": "acme"}}},
		Now:   func() time.Time { return now },
		Burst: 100,
	})
	good := map[string]any{"iss": is.srv.URL, "aud": "imagebot", "exp": now.Add(5 * time.Minute).Unix(), "iat": now.Unix(), "repository_owner": "acme", "sub": "repo:acme/api:ref:refs/heads/main"}
	with := func(k string, v any) map[string]any {
		c := map[string]any{}
		for a, b := range good {
			c[a] = b
		}
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
		return c
	}
	// alg none: a header and claims, no signature.
	b64 := base64.RawURLEncoding.EncodeToString
	claims, _ := json.Marshal(good)
	none := b64([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + b64(claims) + "."
	// HS256 keyed with the issuer's public modulus: a classic confusion.
	hs, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: is.key.PublicKey.N.Bytes()}, nil)
	hsTok, _ := jwt.Signed(hs).Claims(good).Serialize()
	// Signed by another key with the same kid.
	other := &issuer{key: mustRSA(t)}
	forged := other.token(t, good)

	for _, tc := range []struct {
		name  string
		token string
		want  int
	}{
		{"valid", is.token(t, good), 202},
		{"other audience", is.token(t, with("aud", "someone-else")), 401},
		{"expired", is.token(t, with("exp", now.Add(-5*time.Minute).Unix())), 401},
		{"no expiry", is.token(t, with("exp", nil)), 401},
		{"other owner", is.token(t, with("repository_owner", "mallory")), 401},
		{"claim missing", is.token(t, with("repository_owner", nil)), 401},
		{"foreign issuer", is.token(t, with("iss", "https://token.example")), 401},
		{"alg none", none, 401},
		{"HS256", hsTok, 401},
		{"another key", forged, 401},
		{"garbage", "not.a.token", 401},
	} {
		w := post(s, "/hooks/generic", map[string]string{"Authorization": "Bearer " + tc.token}, genericBody)
		if w.Code != tc.want {
			t.Errorf("%s: status %d (%s), want %d", tc.name, w.Code, strings.TrimSpace(w.Body.String()), tc.want)
		}
		q := s.queue.take()
		if (len(q) == 1) != (tc.want == 202) {
			t.Errorf("%s: queued %+v", tc.name, q)
		}
	}
	if is.hits != 2 {
		t.Errorf("the issuer was asked %d times, want 2 (configuration and keys, once)", is.hits)
	}
}

func mustRSA(t *testing.T) *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return k
}
