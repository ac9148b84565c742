package main

import (
	"crypto/x509"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// TestRegistryRefusesCredentials: a registry that wants credentials the
// run does not have is one line for its host, with the hint to give them,
// not one line per image.
func TestRegistryRefusesCredentials(t *testing.T) {
	srv := registrytest.NewServer(t, registrytest.WithBasicAuth("bot", "s3cret"))
	dir := t.TempDir()
	pod := "kind: Pod\nspec:\n  containers:\n  - image: nginx:1.25.3\n  - image: redis:7.2.4\n"
	if err := os.WriteFile(filepath.Join(dir, "pod.yaml"), []byte(pod), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code := imagebot(t, environ{}, "plan", dir, "--mirror", "docker.io="+srv.URL()+"/docker.io")
	if code != exitPartial {
		t.Errorf("exit %d, want %d", code, exitPartial)
	}
	host := srv.Host()
	for _, want := range []string{
		"no updates known: no image could be looked up\n",
		"\n1 registry not reached:\n  " + host + " (for docker.io): 2 images not looked up: ",
		"\n    hint: " + host + " wants credentials: `docker login " + host + "`",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "\n") > 6 {
		t.Errorf("more than a few lines:\n%s", out)
	}
}

// TestHints: the errors that say what to do get a hint naming it: a name
// that does not resolve (a mirror), a certificate for another name, a
// registry that speaks plain HTTP (http://, written), credentials.
func TestHints(t *testing.T) {
	tls := httptest.NewTLSServer(nil)
	t.Cleanup(tls.Close)
	dns := &net.DNSError{Err: "no such host", Name: "registry.acme.internal", IsNotFound: true}
	name := x509.HostnameError{Certificate: tls.Certificate(), Host: "registry.acme.internal"}
	for _, tc := range []struct{ msg, want string }{
		{"GET https://registry.acme.internal/v2/: dial tcp: " + dns.Error(), "does not resolve here: check its spelling, or reach it through a mirror (--mirror"},
		{"GET https://registry.acme.internal/v2/: tls: failed to verify certificate: " + name.Error(), "names other hosts"},
		{`GET https://registry.acme.internal/v2/: http: server gave HTTP response to HTTPS client`, "write the mirror as http://registry.acme.internal"},
		{"GET https://registry.acme.internal/v2/: UNAUTHORIZED: authentication required", "wants credentials"},
		{"GET https://registry.acme.internal/v2/: unexpected status code 500", ""},
	} {
		got := hint("registry.acme.internal", tc.msg)
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("hint(%q) = %q, want it to say %q", tc.msg, got, tc.want)
		}
	}
}
