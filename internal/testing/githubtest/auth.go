package githubtest

import (
	"context"
	"crypto/subtle"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	jwt "github.com/golang-jwt/jwt/v4"
)

// credential is the kind of secret a request authenticated with.
type credential int

const (
	// withToken is the token of WithToken: GITHUB_TOKEN, which acts as
	// github-actions[bot].
	withToken credential = iota
	// withInstallation is an installation access token: the App's bot.
	withInstallation
	// withUser is a person's token (WithUser): the person acts.
	withUser
	// withJWT is an App's own JWT, good only for the /app endpoints and
	// for finding the installation of a repository.
	withJWT
)

// actor is who a request acts as.
type actor struct {
	login string // "github-actions[bot]", "<slug>[bot]"
	cred  credential
	app   *app          // withJWT and withInstallation
	inst  *installation // withInstallation
}

type actorKey struct{}

// actorOf is the actor ServeHTTP authenticated; handlers run only for one.
func actorOf(req *http.Request) *actor {
	a, _ := req.Context().Value(actorKey{}).(*actor)
	if a == nil {
		return &actor{login: botLogin}
	}
	return a
}

// Write is one state-changing request, and who made it.
type Write struct {
	Method, Path string
	// Actor is the login the request acted as: "github-actions[bot]" for
	// the token of WithToken, "<slug>[bot]" for an App's installation
	// token, "<slug>" for an App's JWT.
	Actor string
}

// WriteLog returns every write so far, in order, refused ones included,
// as Writes counts them.
func (s *Server) WriteLog() []Write {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Write(nil), s.writeLog...)
}

// ValidToken reports whether token is one the fake takes now: the token of
// WithToken, or an installation token that has not expired. gittest's
// CheckTokens takes it, so that the git remote and the API agree on which
// tokens are current, as github.com's do.
func (s *Server) ValidToken(token string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, _ := s.byToken(token)
	return a != nil
}

// authenticate reads the Authorization header as GitHub does ("Bearer <t>"
// or "token <t>") and says who it is, or why GitHub would answer 401.
func (s *Server) authenticate(r *http.Request) (*actor, string) {
	scheme, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	scheme, tok = strings.ToLower(scheme), strings.TrimSpace(tok)
	if (scheme != "bearer" && scheme != "token") || tok == "" {
		return nil, "Bad credentials"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if strings.Count(tok, ".") == 2 {
		return s.verifyJWT(tok)
	}
	return s.byToken(tok)
}

// byToken finds the actor of a token; the caller holds s.mu.
func (s *Server) byToken(tok string) (*actor, string) {
	if subtle.ConstantTimeCompare([]byte(tok), []byte(s.token)) == 1 {
		return &actor{login: botLogin, cred: withToken}, ""
	}
	if login, ok := s.users[tok]; ok {
		return &actor{login: login, cred: withUser}, ""
	}
	it := s.tokens[tok]
	if it == nil || !s.clock().Before(it.expires) {
		// An expired token is as unknown to GitHub as a wrong one.
		return nil, "Bad credentials"
	}
	return &actor{login: it.inst.app.bot(), cred: withInstallation, app: it.inst.app, inst: it.inst}, ""
}

// GitHub's answers to a JWT it cannot take, word for word.
const (
	jwtUndecodable = "A JSON web token could not be decoded"
	jwtBadIssuer   = "'Issuer' claim ('iss') must be an Integer"
	jwtBadIssued   = "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued"
	jwtExpired     = "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires"
	jwtTooLong     = "'Expiration time' claim ('exp') is too far in the future"
	appNotFound    = "Integration not found"
)

// maxJWTLifetime is GitHub's limit on a JWT's exp: ten minutes from now.
const maxJWTLifetime = 10 * time.Minute

// verifyJWT checks an App's JWT as GitHub does: RS256 signed by one of the
// App's keys, iss its id, issued in the past, expiring in the future but
// no more than ten minutes from now, all in the fake's clock. The caller
// holds s.mu.
func (s *Server) verifyJWT(raw string) (*actor, string) {
	var claims jwt.RegisteredClaims
	var found *app
	_, err := jwt.ParseWithClaims(raw, &claims, func(t *jwt.Token) (any, error) {
		id, err := strconv.ParseInt(claims.Issuer, 10, 64)
		if err != nil {
			return nil, errors.New(jwtBadIssuer)
		}
		if found = s.apps[id]; found == nil {
			//lint:ignore ST1005 GitHub's own words
			return nil, errors.New(appNotFound)
		}
		return found.key, nil
	}, jwt.WithValidMethods([]string{"RS256"}), jwt.WithoutClaimsValidation())
	var ve *jwt.ValidationError
	switch {
	case errors.As(err, &ve) && ve.Inner != nil && (ve.Inner.Error() == jwtBadIssuer || ve.Inner.Error() == appNotFound):
		return nil, ve.Inner.Error()
	case err != nil:
		return nil, jwtUndecodable
	}
	now := s.clock()
	switch {
	case claims.IssuedAt == nil || claims.IssuedAt.After(now):
		return nil, jwtBadIssued
	case claims.ExpiresAt == nil || !claims.ExpiresAt.After(now):
		return nil, jwtExpired
	case claims.ExpiresAt.Sub(now) > maxJWTLifetime:
		return nil, jwtTooLong
	}
	return &actor{login: found.slug, cred: withJWT, app: found}, ""
}

// permitted says whether a's credential may be used on path, and GitHub's
// answer when not: a JWT only works on the App's own endpoints and for
// finding a repository's installation, and those take nothing else; an
// installation token only reaches the repositories it was installed on.
func (a *actor) permitted(path string) (int, string, bool) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	forApp := parts[0] == "app" || (len(parts) == 4 && parts[0] == "repos" && parts[3] == "installation")
	switch {
	case forApp && a.cred != withJWT:
		return http.StatusUnauthorized, jwtUndecodable, false
	case !forApp && a.cred == withJWT:
		return http.StatusUnauthorized, "Bad credentials", false
	case a.cred == withInstallation && parts[0] == "repos" && len(parts) >= 3 && !a.inst.covers(parts[1], parts[2]):
		return http.StatusNotFound, "Not Found", false
	}
	return 0, "", true
}

// withActor hands the actor to the handlers.
func withActor(r *http.Request, a *actor) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), actorKey{}, a))
}
