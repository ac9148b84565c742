package serve

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Push hooks (DESIGN.md "Own images and push hooks"): POST /hooks/KIND on
// serve's listener, in each sender's own format and authentication:
//
//	generic    JSON {"image","tag","digest"}; X-Imagebot-Signature-256:
//	           sha256=<hex HMAC-SHA256 of the raw body>, or an OIDC token
//	           (Authorization: Bearer) from a CI job (oidc.go)
//	github     registry_package / package events; X-Hub-Signature-256, as
//	           GitHub signs every webhook with its secret
//	harbor     PUSH_ARTIFACT events; Authorization: Bearer <secret>, the
//	           "Auth Header" Harbor's webhook policy sends as written
//	dockerhub  Docker Hub and Quay sign nothing and send no header a user
//	quay       sets: the secret is the URL's query, ?token=<secret>, which
//	           a sender keeps as secret as the URL itself
//
// A notification only says which image to look at: it is queued
// (hookqueue.go), and the run looks the image up itself.

// HookOptions turn push hooks on: Secret (--hook-secret-env) for the
// signed kinds, OIDC (--hook-oidc) for CI jobs' tokens. Without either,
// /hooks/ answers 404.
type HookOptions struct {
	Secret []byte
	OIDC   []OIDCIssuer
	// Client fetches the issuers' discovery documents and keys (nil:
	// http.DefaultClient).
	Client *http.Client
	// Rate and Burst limit the notifications of one sender (its address):
	// default 1 a second, in bursts of 10. Beyond: 429.
	Rate  rate.Limit
	Burst int
	// Now is the clock of token expiry and of hook_to_pr (default time.Now).
	Now func() time.Time
}

func (h HookOptions) on() bool { return len(h.Secret) > 0 || len(h.OIDC) > 0 }

// maxHookBody bounds a notification: real ones are a few KiB.
const maxHookBody = 1 << 20

// push is what a notification claims: the image (normalized), a tag, and
// the digest when the sender states one.
type push struct {
	Image  string
	Tag    string
	Digest string
}

// hookKinds parse each sender's body into the pushes it announces.
var hookKinds = map[string]func(body []byte) ([]push, error){
	"generic":   parseGeneric,
	"github":    parseGitHub,
	"dockerhub": parseDockerHub,
	"quay":      parseQuay,
	"harbor":    parseHarbor,
}

// errUnauthorized is a notification whose sender could not be verified.
var errUnauthorized = errors.New("unauthorized")

// hooks serves POST /hooks/{kind}.
func (s *Server) hooks(w http.ResponseWriter, r *http.Request) {
	kind := r.PathValue("kind")
	parse, ok := hookKinds[kind]
	if !ok {
		http.NotFound(w, r)
		return
	}
	answer := func(code int, result, msg string) {
		s.metrics.hookRequests.WithLabelValues(kind, result).Inc()
		switch {
		case code == http.StatusTooManyRequests:
			// A flood is counted, not logged line by line.
			s.log.Debug("push notification refused", "kind", kind, "status", code, "from", sender(r))
		case code >= 400:
			// The sender's words are never logged, only what was wrong.
			s.log.Warn("push notification refused", "kind", kind, "status", code, "why", msg, "from", sender(r))
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(code)
		io.WriteString(w, msg+"\n")
	}
	if !s.hookLimiter(sender(r)).Allow() {
		w.Header().Set("Retry-After", "10")
		answer(http.StatusTooManyRequests, "rate_limited", "too many notifications from this sender")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxHookBody))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		answer(http.StatusRequestEntityTooLarge, "too_large", "body over 1 MiB")
		return
	case err != nil:
		answer(http.StatusBadRequest, "bad_request", "cannot read the body")
		return
	}
	if err := s.authenticate(r, kind, body); err != nil {
		answer(http.StatusUnauthorized, "unauthorized", err.Error())
		return
	}
	if kind == "github" && r.Header.Get("X-GitHub-Event") == "ping" {
		// Sent once when the webhook is created: an answer, no push.
		answer(http.StatusOK, "ping", "pong")
		return
	}
	pushes, err := parse(body)
	if err != nil {
		answer(http.StatusBadRequest, "bad_request", err.Error())
		return
	}
	at := s.hookNow()
	for _, p := range pushes {
		s.queue.add(p, kind, at)
	}
	answer(http.StatusAccepted, "accepted", "accepted: the image is looked up and planned next")
}

// authenticate checks the sender as its kind authenticates.
func (s *Server) authenticate(r *http.Request, kind string, body []byte) error {
	secret := s.o.Hooks.Secret
	switch kind {
	case "generic":
		if bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && len(s.o.Hooks.OIDC) > 0 {
			return s.oidc.verify(r.Context(), bearer)
		}
		return checkHMAC(secret, r.Header.Get("X-Imagebot-Signature-256"), body)
	case "github":
		return checkHMAC(secret, r.Header.Get("X-Hub-Signature-256"), body)
	case "harbor":
		return checkToken(secret, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
	default: // dockerhub, quay
		return checkToken(secret, r.URL.Query().Get("token"))
	}
}

// checkHMAC verifies "sha256=<hex>" against the body, in constant time.
func checkHMAC(secret []byte, header string, body []byte) error {
	if len(secret) == 0 {
		return errUnauthorized
	}
	got, ok := strings.CutPrefix(header, "sha256=")
	sig, err := hex.DecodeString(got)
	if !ok || err != nil {
		return errors.New("unauthorized: no sha256= signature")
	}
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	if !hmac.Equal(sig, m.Sum(nil)) {
		return errors.New("unauthorized: the signature does not match")
	}
	return nil
}

// checkToken compares a secret sent as is, in constant time.
func checkToken(secret []byte, got string) error {
	if len(secret) == 0 || got == "" || subtle.ConstantTimeCompare(secret, []byte(got)) != 1 {
		return errUnauthorized
	}
	return nil
}

// sender is who a rate limit counts: the peer's address.
func sender(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// limiters are the per-sender rate limits, forgotten all at once when
// more senders than maxSenders were seen, so that a flood from many
// addresses cannot grow the map without bound.
type limiters struct {
	mu sync.Mutex
	by map[string]*rate.Limiter
}

const maxSenders = 10000

func (s *Server) hookLimiter(who string) *rate.Limiter {
	l := &s.limits
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.by == nil || len(l.by) >= maxSenders {
		l.by = map[string]*rate.Limiter{}
	}
	lim, ok := l.by[who]
	if !ok {
		r, b := s.o.Hooks.Rate, s.o.Hooks.Burst
		if r == 0 {
			r = 1
		}
		if b == 0 {
			b = 10
		}
		lim = rate.NewLimiter(r, b)
		l.by[who] = lim
	}
	return lim
}

func (s *Server) hookNow() time.Time {
	if s.o.Hooks.Now != nil {
		return s.o.Hooks.Now()
	}
	return time.Now()
}
