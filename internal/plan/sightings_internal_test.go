package plan

import (
	"testing"

	"github.com/imagebot/imagebot/internal/scan"
)

// TestSightingKey: a version without a digest is recorded by its
// repository, chart and version: each of them changes the key, the same
// three give the same key run after run, and a digest is its own key.
func TestSightingKey(t *testing.T) {
	web := httpRepo(&scan.Chart{Repository: "https://charts.example.com", Name: "web"})
	key := func(repo scan.Chart, version string) string {
		r := httpRepo(&repo)
		return sightingKey(r, r.Tag(version), "")
	}
	base := key(scan.Chart{Repository: "https://charts.example.com", Name: "web"}, "1.2.0")
	for _, other := range []string{
		key(scan.Chart{Repository: "https://charts.example.com", Name: "web"}, "1.2.1"),
		key(scan.Chart{Repository: "https://charts.example.com", Name: "api"}, "1.2.0"),
		key(scan.Chart{Repository: "https://mirror.example.com", Name: "web"}, "1.2.0"),
	} {
		if other == base {
			t.Errorf("two versions share the key %s", base)
		}
	}
	if again := key(scan.Chart{Repository: "https://charts.example.com", Name: "web"}, "1.2.0"); again != base || !hexDigest(again) {
		t.Errorf("key %q, then %q", base, again)
	}
	d := "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	if got := sightingKey(web, web.Tag("1.2.0"), d); got != d {
		t.Errorf("a digest is keyed %q", got)
	}
	if got := sightingKey(web, web.Digest(d), ""); got != "" {
		t.Errorf("a digest reference without a digest is keyed %q", got)
	}
}

// hexDigest reports whether k has a digest's form, which the dashboard's
// marker keeps.
func hexDigest(k string) bool {
	if len(k) != len("sha256:")+64 || k[:7] != "sha256:" {
		return false
	}
	for _, c := range k[7:] {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
