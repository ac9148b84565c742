package gittest

import (
	"bytes"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Server is a git remote over smart HTTP backed by bare repositories in one
// directory, laid out as <dir>/<owner>/<name>.git like GitHub's URLs.
type Server struct {
	root    string
	ownRoot bool // root was created by New and is removed by Close
	token   string
	backend http.Handler // in process, or git http-backend
	http    *httptest.Server

	mu         sync.Mutex
	pushes     int
	fetches    int
	requests   Requests
	failPushes int
	hooks      []pushHook
	valid      func(token string) bool // nil: the token of New only
}

// PushStage is a moment in a push at which OnNextPush can step in.
type PushStage int

const (
	// BeforeAdvertise is before the server lists its refs to a pusher:
	// what the pusher sees, and leases against, already includes what the
	// hook did.
	BeforeAdvertise PushStage = iota
	// BeforeUpdate is after the pusher has seen the refs and sent its
	// commands, before receive-pack updates them: the refs have moved
	// under the pusher, and only receive-pack's check of each ref's old
	// value stands between the push and what the hook did.
	BeforeUpdate
)

type pushHook struct {
	stage PushStage
	fn    func()
}

// New starts a server for the repositories under dir (created when missing;
// a temporary directory, removed by Close, when dir is empty). Clients must
// authenticate with token as the basic-auth password: an empty token is an
// error because a remote that accepts anyone would hide missing credentials.
//
// It answers in process with go-git's server side (see inProcess): no git
// process per request, which is what the tests' large scenario matrix
// needs. With IMAGEBOT_GITSERVER=http-backend in the environment it is
// NewHTTPBackend instead (`make test-all`), so the whole matrix can still
// be run against git's own receive-pack.
func New(dir, token string) (*Server, error) {
	if os.Getenv(BackendEnv) == "http-backend" {
		return NewHTTPBackend(dir, token)
	}
	return newInProcessServer(dir, token)
}

// newInProcessServer is New whatever the environment says.
func newInProcessServer(dir, token string) (*Server, error) {
	s, err := newServer(dir, token)
	if err != nil {
		return nil, err
	}
	s.backend = newInProcess(s.root)
	s.http = httptest.NewServer(s)
	return s, nil
}

// BackendEnv names the environment variable that makes New serve through
// `git http-backend` ("http-backend") instead of in process.
const BackendEnv = "IMAGEBOT_GITSERVER"

// NewHTTPBackend is New served by the installed git's own `git
// http-backend` behind net/http/cgi: the real receive-pack and upload-pack,
// at the cost of a few git processes per request. End-to-end tests use it
// to show that what the in-process server accepts and refuses is what git
// does, and the git CLI as a client needs it.
func NewHTTPBackend(dir, token string) (*Server, error) {
	backend, err := httpBackend()
	if err != nil {
		return nil, err
	}
	s, err := newServer(dir, token)
	if err != nil {
		return nil, err
	}
	s.backend = &cgi.Handler{
		Path: backend,
		Root: "/",
		Env: append(isolatedGitEnv(),
			"GIT_PROJECT_ROOT="+s.root,
			// Serve every repository under the root without a
			// git-daemon-export-ok file, as a hosting service does.
			"GIT_HTTP_EXPORT_ALL=1",
			// Receive-pack is off by default for unauthenticated CGI
			// requests; we authenticate in front of the backend instead.
			"GIT_CONFIG_COUNT=2",
			"GIT_CONFIG_KEY_0=http.receivepack",
			"GIT_CONFIG_VALUE_0=true",
			// A hosting service collects garbage on its own schedule, not
			// in a process after every push, which made pushes the slow
			// part of the tests.
			"GIT_CONFIG_KEY_1=receive.autogc",
			"GIT_CONFIG_VALUE_1=false",
		),
		// The backend's complaints would mix into test output; failures
		// still reach the client as HTTP errors.
		Logger: log.New(io.Discard, "", 0),
		Stderr: io.Discard,
	}
	s.http = httptest.NewServer(s)
	return s, nil
}

// newServer checks the token and makes the root; the caller sets the
// backend and starts the HTTP server.
func newServer(dir, token string) (*Server, error) {
	if token == "" {
		return nil, errors.New("gittest: empty token")
	}
	s := &Server{root: dir, token: token}
	if dir == "" {
		var err error
		if s.root, err = os.MkdirTemp("", "gittest-"); err != nil {
			return nil, fmt.Errorf("gittest: %w", err)
		}
		s.ownRoot = true
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("gittest: %w", err)
	}
	return s, nil
}

// httpBackend finds git-http-backend next to the installed git, the program
// that github.com's own protocol handling is compatible with.
func httpBackend() (string, error) {
	out, err := gitOutput("", nil, "--exec-path")
	if err != nil {
		return "", fmt.Errorf("gittest: locate git: %w", err)
	}
	path := filepath.Join(strings.TrimSpace(out), "git-http-backend")
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("gittest: git http-backend: %w", err)
	}
	return path, nil
}

// URL is the clone URL of repo ("owner/name"), e.g.
// http://127.0.0.1:PORT/acme/apps.git. It carries no credentials.
func (s *Server) URL(repo string) string {
	return s.http.URL + "/" + strings.TrimSuffix(repo, ".git") + ".git"
}

// Dir is the path of the bare repository owner/name, for assertions with
// go-git or the git CLI, and for githubtest's merge backend.
func (s *Server) Dir(owner, name string) string {
	return filepath.Join(s.root, owner, strings.TrimSuffix(name, ".git")+".git")
}

// Pushes counts the authenticated receive-pack POSTs so far, including those
// failed by FailPushes: a test asserting "no push" wants no attempt at all.
// A push that finds nothing to send (go-git's NoErrAlreadyUpToDate) never
// POSTs and is not counted.
func (s *Server) Pushes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pushes
}

// Fetches counts the authenticated upload-pack ref advertisements so far:
// one per fetch or clone, whether or not it then finds anything to
// download (go-git asks for no pack when it has every tip already).
func (s *Server) Fetches() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fetches
}

// Requests counts a server's authenticated git requests by kind: what a
// client's git traffic costs, for tests to bound.
type Requests struct {
	// Advertisements are the ref advertisements (GET info/refs), for a
	// fetch or for a push; UploadPacks and ReceivePacks the POSTs that
	// download a pack and push one.
	Advertisements, UploadPacks, ReceivePacks int
}

// Total is every request counted.
func (r Requests) Total() int { return r.Advertisements + r.UploadPacks + r.ReceivePacks }

// Sub is what was counted since before.
func (r Requests) Sub(before Requests) Requests {
	return Requests{r.Advertisements - before.Advertisements, r.UploadPacks - before.UploadPacks, r.ReceivePacks - before.ReceivePacks}
}

// Requests counts the authenticated git requests so far, by kind.
func (s *Server) Requests() Requests {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

// FailPushes makes the next n receive-pack POSTs answer 500 without touching
// the repository, as a remote that is down mid-run would.
func (s *Server) FailPushes(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failPushes = n
}

// OnNextPush runs fn once, when the next push reaches stage. Tests use it
// to land a competing push (a person's, another run's) exactly in the
// window a race would: fn may push to the server itself, and that push
// does not trigger the hook again. Hooks queue and fire in order.
func (s *Server) OnNextPush(stage PushStage, fn func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hooks = append(s.hooks, pushHook{stage, fn})
}

// hook pops the first hook when it is for stage.
func (s *Server) hook(stage PushStage) func() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.hooks) == 0 || s.hooks[0].stage != stage {
		return nil
	}
	fn := s.hooks[0].fn
	s.hooks = s.hooks[1:]
	return fn
}

// Close stops the server and removes the repositories if New created their
// directory.
func (s *Server) Close() {
	s.http.Close()
	if s.ownRoot {
		os.RemoveAll(s.root)
	}
}

// ServeHTTP authenticates, counts fetches and pushes and optionally fails
// pushes, then hands the request to the backend.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(r) {
		// The challenge makes the git CLI ask its credential helpers and
		// go-git report transport.ErrAuthenticationRequired, as against
		// github.com.
		w.Header().Set("WWW-Authenticate", `Basic realm="gittest"`)
		http.Error(w, "authentication required", http.StatusUnauthorized)
		return
	}
	var service string // of a ref advertisement
	if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/info/refs") {
		service = r.URL.Query().Get("service")
	}
	advertise := service == "git-receive-pack"
	update := r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git-receive-pack")
	s.mu.Lock()
	switch {
	case service != "":
		s.requests.Advertisements++
		if service == "git-upload-pack" {
			s.fetches++
		}
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git-upload-pack"):
		s.requests.UploadPacks++
	case update:
		s.requests.ReceivePacks++
	}
	s.mu.Unlock()
	var fn func()
	switch {
	case advertise:
		fn = s.hook(BeforeAdvertise)
	case update:
		fn = s.hook(BeforeUpdate)
	}
	if fn != nil {
		fn()
	}
	if update && s.countPush() {
		http.Error(w, "injected push failure", http.StatusInternalServerError)
		return
	}
	r = r.Clone(r.Context())
	// The token stays here: CGI would export it as HTTP_AUTHORIZATION.
	r.Header.Del("Authorization")
	r.URL.Path = withGitSuffix(r.URL.Path)
	if err := unchunk(r); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.backend.ServeHTTP(w, r)
}

// CheckTokens makes the server take exactly the passwords valid accepts,
// instead of the token of New: pass githubtest's ValidToken, and the git
// remote accepts the tokens the fake API does, a GitHub App's installation
// tokens included, and refuses them once they expire, as github.com does.
func (s *Server) CheckTokens(valid func(token string) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.valid = valid
}

func (s *Server) authorized(r *http.Request) bool {
	_, pass, ok := r.BasicAuth()
	if !ok {
		return false
	}
	s.mu.Lock()
	valid := s.valid
	s.mu.Unlock()
	if valid != nil {
		return valid(pass)
	}
	return subtle.ConstantTimeCompare([]byte(pass), []byte(s.token)) == 1
}

// countPush records a receive-pack POST and reports whether to fail it.
func (s *Server) countPush() (fail bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pushes++
	if s.failPushes > 0 {
		s.failPushes--
		return true
	}
	return false
}

// withGitSuffix maps GitHub's suffix-less URLs (/owner/name/info/refs) onto
// the repository directory (/owner/name.git/info/refs).
func withGitSuffix(p string) string {
	parts := strings.SplitN(p, "/", 4) // "", owner, name, rest
	if len(parts) < 3 || strings.HasSuffix(parts[2], ".git") {
		return p
	}
	parts[2] += ".git"
	return strings.Join(parts, "/")
}

// unchunk buffers a chunked request body: net/http/cgi refuses chunked
// bodies, and the git CLI sends pushes larger than http.postBuffer chunked.
func unchunk(r *http.Request) error {
	if r.ContentLength >= 0 || r.Body == nil {
		return nil
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return fmt.Errorf("read request body: %w", err)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.TransferEncoding = nil
	return nil
}

// RequireMultiACK makes the server behave as Azure Repos: it advertises
// multi_ack and multi_ack_detailed and refuses a fetch that asks for
// neither, which go-git does unless they are taken off
// transport.UnsupportedCapabilities. In process only: git's own
// upload-pack (NewHTTPBackend) serves them without requiring them.
func (s *Server) RequireMultiACK() {
	if h, ok := s.backend.(*inProcess); ok {
		h.multiACK.Store(true)
	}
}
