package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// OIDCIssuer is one --hook-oidc ISSUER=AUDIENCE with the claims serve's
// config (hooks.oidc) asks of its tokens: every one must be equal.
type OIDCIssuer struct {
	Issuer   string
	Audience string
	Claims   map[string]string
}

// oidcAlgs are the signature algorithms a CI token may use: GitHub
// Actions and GitLab sign with RS256; none, HS* (which would make the
// public key a shared secret) and anything else are refused.
var oidcAlgs = []jose.SignatureAlgorithm{jose.RS256, jose.RS384, jose.RS512, jose.ES256, jose.ES384, jose.PS256}

// jwksTTL is how long an issuer's keys are kept before they are fetched
// again; an unknown key ID fetches them at once (a rotation), at most
// once a minute.
const jwksTTL = time.Hour

// oidcVerifier checks CI tokens against their issuers' published keys,
// fetched from the issuer's OpenID configuration and kept for jwksTTL.
type oidcVerifier struct {
	issuers []OIDCIssuer
	client  *http.Client
	now     func() time.Time

	mu   sync.Mutex
	keys map[string]*issuerKeys
}

type issuerKeys struct {
	set     jose.JSONWebKeySet
	fetched time.Time
}

func newOIDCVerifier(o HookOptions) *oidcVerifier {
	c := o.Client
	if c == nil {
		c = http.DefaultClient
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	return &oidcVerifier{issuers: o.OIDC, client: c, now: now, keys: map[string]*issuerKeys{}}
}

// verify checks raw: signed by a key of a configured issuer with an
// accepted algorithm, for its audience, not expired, and carrying every
// claim that issuer's entry asks for. Errors say what failed, never the
// token.
func (v *oidcVerifier) verify(ctx context.Context, raw string) error {
	tok, err := jwt.ParseSigned(raw, oidcAlgs)
	if err != nil {
		return errors.New("unauthorized: not a token signed with an accepted algorithm")
	}
	// The issuer is read unverified only to pick whose keys verify it.
	var unverified jwt.Claims
	if err := tok.UnsafeClaimsWithoutVerification(&unverified); err != nil {
		return errors.New("unauthorized: unreadable claims")
	}
	var iss *OIDCIssuer
	for i := range v.issuers {
		if v.issuers[i].Issuer == unverified.Issuer {
			iss = &v.issuers[i]
		}
	}
	if iss == nil {
		return errors.New("unauthorized: a token of an issuer not configured (--hook-oidc)")
	}
	kid := ""
	if len(tok.Headers) > 0 {
		kid = tok.Headers[0].KeyID
	}
	keys, err := v.keysFor(ctx, iss.Issuer, kid)
	if err != nil {
		return fmt.Errorf("unauthorized: keys of %s: %w", iss.Issuer, err)
	}
	var claims jwt.Claims
	extra := map[string]any{}
	var verr error
	for _, k := range keys {
		if verr = tok.Claims(k.Key, &claims, &extra); verr == nil {
			break
		}
	}
	if verr != nil || len(keys) == 0 {
		return errors.New("unauthorized: the signature does not verify with the issuer's keys")
	}
	err = claims.ValidateWithLeeway(jwt.Expected{Issuer: iss.Issuer, AnyAudience: jwt.Audience{iss.Audience}, Time: v.now()}, time.Minute)
	if err != nil {
		return fmt.Errorf("unauthorized: %w", err)
	}
	if claims.Expiry == nil {
		return errors.New("unauthorized: the token has no expiry")
	}
	for k, want := range iss.Claims {
		if got, ok := extra[k].(string); !ok || got != want {
			return fmt.Errorf("unauthorized: claim %s is not the one configured", k)
		}
	}
	return nil
}

// keysFor returns the issuer's keys with kid (all, when kid is ""),
// fetching them when none is kept, they are older than jwksTTL, or kid is
// unknown and they are older than a minute.
func (v *oidcVerifier) keysFor(ctx context.Context, issuer, kid string) ([]jose.JSONWebKey, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	k := v.keys[issuer]
	now := v.now()
	stale := k == nil || now.Sub(k.fetched) > jwksTTL
	if !stale && kid != "" && len(k.set.Key(kid)) == 0 && now.Sub(k.fetched) > time.Minute {
		stale = true
	}
	if stale {
		set, err := v.fetch(ctx, issuer)
		if err != nil {
			if k == nil {
				return nil, err
			}
		} else {
			k = &issuerKeys{set: set, fetched: now}
			v.keys[issuer] = k
		}
	}
	if kid == "" {
		return k.set.Keys, nil
	}
	return k.set.Key(kid), nil
}

// fetch reads ISSUER/.well-known/openid-configuration and the JWKS it
// names. The configuration must name the issuer itself.
func (v *oidcVerifier) fetch(ctx context.Context, issuer string) (jose.JSONWebKeySet, error) {
	var disc struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	if err := v.getJSON(ctx, strings.TrimSuffix(issuer, "/")+"/.well-known/openid-configuration", &disc); err != nil {
		return jose.JSONWebKeySet{}, err
	}
	if disc.Issuer != issuer || disc.JWKSURI == "" {
		return jose.JSONWebKeySet{}, errors.New("the OpenID configuration names another issuer, or no jwks_uri")
	}
	var set jose.JSONWebKeySet
	if err := v.getJSON(ctx, disc.JWKSURI, &set); err != nil {
		return jose.JSONWebKeySet{}, err
	}
	return set, nil
}

func (v *oidcVerifier) getJSON(ctx context.Context, url string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := v.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(out); err != nil {
		return fmt.Errorf("GET %s: %w", url, err)
	}
	return nil
}
