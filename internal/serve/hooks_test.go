package serve

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

const hookSecret = "s3cret-for-tests"

func sign(body string) string { return signWith(hookSecret, body) }

func signWith(secret, body string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(body))
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// hookServer is a Server with push hooks and nothing to run: tests look
// at what a notification queued.
func hookServer(t *testing.T, h HookOptions) *Server {
	t.Helper()
	s, err := New(Options{Dir: t.TempDir(), DryRun: true, Schedule: mustSchedule(t, "@every 24h"), Hooks: h})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func post(s *Server, path string, header map[string]string, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	r.RemoteAddr = "192.0.2.7:40000"
	for k, v := range header {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, r)
	return w
}

const genericBody = `{"image": "ghcr.io/acme/api", "tag": "main-3f9a2c1", "digest": "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}`

// TestHooksOffWithoutSecret: without --hook-secret-env or --hook-oidc the
// endpoints do not exist.
func TestHooksOffWithoutSecret(t *testing.T) {
	s := hookServer(t, HookOptions{})
	if w := post(s, "/hooks/generic", map[string]string{"X-Imagebot-Signature-256": sign(genericBody)}, genericBody); w.Code != http.StatusNotFound {
		t.Errorf("status %d, want 404", w.Code)
	}
}

// TestHookGeneric: a signed notification is accepted and queued; a forged,
// unsigned or oversized one is refused with its status and queues
// nothing; the same image twice is one entry, the later push winning.
func TestHookGeneric(t *testing.T) {
	s := hookServer(t, HookOptions{Secret: []byte(hookSecret), Burst: 100})
	for _, tc := range []struct {
		name   string
		header map[string]string
		body   string
		want   int
	}{
		{"forged", map[string]string{"X-Imagebot-Signature-256": sign(genericBody + " ")}, genericBody, 401},
		{"unsigned", nil, genericBody, 401},
		{"other header", map[string]string{"X-Hub-Signature-256": sign(genericBody)}, genericBody, 401},
		{"too large", map[string]string{"X-Imagebot-Signature-256": "sha256=00"}, strings.Repeat(" ", 1<<20+1), 413},
		{"not json", map[string]string{"X-Imagebot-Signature-256": sign("<xml/>")}, "<xml/>", 400},
		{"bad digest", map[string]string{"X-Imagebot-Signature-256": sign(`{"image":"ghcr.io/a/b","tag":"x","digest":"md5:1"}`)}, `{"image":"ghcr.io/a/b","tag":"x","digest":"md5:1"}`, 400},
	} {
		if w := post(s, "/hooks/generic", tc.header, tc.body); w.Code != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, w.Code, tc.want)
		}
		if q := s.queue.take(); len(q) != 0 {
			t.Errorf("%s: queued %+v", tc.name, q)
		}
	}
	if w := post(s, "/hooks/generic", map[string]string{"X-Imagebot-Signature-256": sign(genericBody)}, genericBody); w.Code != http.StatusAccepted {
		t.Fatalf("signed: status %d, want 202", w.Code)
	}
	later := strings.Replace(genericBody, "main-3f9a2c1", "main-a0b1c2d", 1)
	post(s, "/hooks/generic", map[string]string{"X-Imagebot-Signature-256": sign(later)}, later)
	q := s.queue.take()
	if len(q) != 1 || q[0].Image != "ghcr.io/acme/api" || q[0].Tag != "main-a0b1c2d" || !strings.HasPrefix(q[0].Digest, "sha256:0123") {
		t.Errorf("queued %+v, want one entry for the later push", q)
	}
	for result, want := range map[string]float64{"accepted": 2, "unauthorized": 3, "too_large": 1, "bad_request": 2} {
		if got := counter(t, s.metrics.hookRequests.WithLabelValues("generic", result)); got != want {
			t.Errorf("hook_requests_total{generic,%s} = %v, want %v", result, got, want)
		}
	}
}

// TestHookRateLimit: a sender beyond its burst is answered 429 and its
// notifications are not queued.
func TestHookRateLimit(t *testing.T) {
	s := hookServer(t, HookOptions{Secret: []byte(hookSecret), Rate: 0.001, Burst: 3})
	codes := []int{}
	for range 5 {
		codes = append(codes, post(s, "/hooks/generic", map[string]string{"X-Imagebot-Signature-256": sign(genericBody)}, genericBody).Code)
	}
	if want := []int{202, 202, 202, 429, 429}; !slices.Equal(codes, want) {
		t.Errorf("statuses %v, want %v", codes, want)
	}
}

// TestHookSenders: each sender's format and authentication.
func TestHookSenders(t *testing.T) {
	const digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	github := `{"action":"published","registry_package":{"name":"api","namespace":"Acme","package_type":"CONTAINER",
		"package_version":{"package_url":"ghcr.io/acme/api:main-3f9a2c1","container_metadata":{"tag":{"name":"main-3f9a2c1","digest":"` + digest + `"}}},
		"registry":{"url":"https://ghcr.io"}}}`
	dockerhub := `{"push_data":{"tag":"main-3f9a2c1","pusher":"ci"},"repository":{"repo_name":"acme/api","namespace":"acme","name":"api"}}`
	quay := `{"repository":"acme/api","namespace":"acme","name":"api","docker_url":"quay.io/acme/api","updated_tags":["main-3f9a2c1","latest"]}`
	harbor := `{"type":"PUSH_ARTIFACT","occur_at":1700000000,"operator":"ci","event_data":{"resources":[{"digest":"` + digest +
		`","tag":"main-3f9a2c1","resource_url":"harbor.acme.example/library/api:main-3f9a2c1"}],"repository":{"name":"api","namespace":"library"}}}`
	for _, tc := range []struct {
		name, path string
		header     map[string]string
		body       string
		want       int
		queued     []string // image:tag@digest
	}{
		{"github", "/hooks/github", map[string]string{"X-Hub-Signature-256": sign(github), "X-GitHub-Event": "registry_package"}, github, 202,
			[]string{"ghcr.io/acme/api:main-3f9a2c1@" + digest}},
		{"github ping", "/hooks/github", map[string]string{"X-Hub-Signature-256": sign(`{"zen":"Keep it logically awesome."}`), "X-GitHub-Event": "ping"}, `{"zen":"Keep it logically awesome."}`, 200, nil},
		{"github forged", "/hooks/github", map[string]string{"X-Hub-Signature-256": sign(github + "x")}, github, 401, nil},
		{"dockerhub", "/hooks/dockerhub?token=" + hookSecret, nil, dockerhub, 202, []string{"docker.io/acme/api:main-3f9a2c1@"}},
		{"dockerhub wrong token", "/hooks/dockerhub?token=guess", nil, dockerhub, 401, nil},
		{"dockerhub no token", "/hooks/dockerhub", nil, dockerhub, 401, nil},
		{"quay", "/hooks/quay?token=" + hookSecret, nil, quay, 202, []string{"quay.io/acme/api:latest@"}},
		{"harbor", "/hooks/harbor", map[string]string{"Authorization": "Bearer " + hookSecret}, harbor, 202,
			[]string{"harbor.acme.example/library/api:main-3f9a2c1@" + digest}},
		{"harbor no auth", "/hooks/harbor", nil, harbor, 401, nil},
		{"unknown kind", "/hooks/gitea", nil, "{}", 404, nil},
	} {
		s := hookServer(t, HookOptions{Secret: []byte(hookSecret)})
		if w := post(s, tc.path, tc.header, tc.body); w.Code != tc.want {
			t.Errorf("%s: status %d (%s), want %d", tc.name, w.Code, w.Body, tc.want)
		}
		var got []string
		for _, q := range s.queue.take() {
			got = append(got, q.Image+":"+q.Tag+"@"+q.Digest)
		}
		if !slices.Equal(got, tc.queued) {
			t.Errorf("%s: queued %q, want %q", tc.name, got, tc.queued)
		}
	}
}

// counter reads one counter's value.
func counter(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

func histogramCount(t *testing.T, s *Server) uint64 {
	t.Helper()
	var m dto.Metric
	if err := s.metrics.hookToPR.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetHistogram().GetSampleCount()
}
