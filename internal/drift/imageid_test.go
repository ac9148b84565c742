package drift

import (
	"strings"
	"testing"
)

// Each form of status.imageID that runtimes write: a registry digest is
// read from Docker's and containerd's forms; a bare image ID, an empty
// one and anything else say why there is nothing to compare.
func TestRunningDigest(t *testing.T) {
	d := "sha256:" + strings.Repeat("ab", 32)
	for _, c := range []struct{ id, digest, why string }{
		{"docker-pullable://nginx@" + d, d, ""},
		{"docker.io/library/nginx@" + d, d, ""},
		{"ghcr.io/acme/api@" + d, d, ""},
		{d, "", "local image ID"},
		{"docker://" + d, "", "local image ID"},
		{"", "", "not pulled yet"},
		{"nginx@sha256:short", "", "form imagebot does not read"},
		{"nginx:1.27", "", "form imagebot does not read"},
	} {
		digest, why := runningDigest(c.id)
		if digest != c.digest || (c.why == "") != (why == "") || !strings.Contains(why, c.why) {
			t.Errorf("runningDigest(%q) = %q, %q; want %q, %q", c.id, digest, why, c.digest, c.why)
		}
	}
}

// A spec image is compared with a reference as the kubelet reads it: no
// tag and no digest means latest, and every spelling of Docker Hub is one.
func TestSpecRuns(t *testing.T) {
	ref := func(image, tag, digest string) Reference { return Reference{Image: image, Tag: tag, Digest: digest} }
	d := "sha256:" + strings.Repeat("cd", 32)
	for _, c := range []struct {
		spec string
		ref  Reference
		runs bool
	}{
		{"nginx", ref("docker.io/library/nginx", "latest", ""), true},
		{"nginx", ref("docker.io/library/nginx", "", ""), true},
		{"index.docker.io/library/nginx:1.27", ref("docker.io/library/nginx", "1.27", ""), true},
		{"nginx:1.27@" + d, ref("docker.io/library/nginx", "1.27", d), true},
		{"nginx:1.27@" + d, ref("docker.io/library/nginx", "1.27", ""), false},
		{"nginx:1.26", ref("docker.io/library/nginx", "1.27", ""), false},
		{"127.0.0.1:5000/acme/web:1", ref("127.0.0.1:5000/acme/web", "1", ""), true},
	} {
		s, err := parseSpec(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.runs(c.ref); got != c.runs {
			t.Errorf("%s runs %s = %v, want %v", c.spec, c.ref.written(), got, c.runs)
		}
	}
}
