package registry_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// TestNamesChecked: the Client is asked with parsed names, whose tag or
// digest pkg/name leaves unchecked when the plan makes a reference of a
// repository and a listed tag. One that is not a tag or digest never
// reaches a URL: the lookup fails, naming it, without a request.
func TestNamesChecked(t *testing.T) {
	srv := registrytest.NewServer(t)
	pushTags(t, srv, "acme/api", "1.0.0")
	c := newClient(viaMirror(srv))
	api := registrytest.Repo(t, "ghcr.io/acme/api")
	ctx := t.Context()
	lookups := []struct {
		name string
		call func(context.Context) error
		want string
	}{
		{"tag with a slash", func(ctx context.Context) error { _, err := c.Digest(ctx, api.Tag("5000/x")); return err }, "ghcr.io/acme/api:5000/x"},
		{"tag with a query", func(ctx context.Context) error { _, err := c.Digest(ctx, api.Tag("1.0?n=1")); return err }, "ghcr.io/acme/api:1.0?n=1"},
		{"empty tag", func(ctx context.Context) error { _, err := c.Info(ctx, api.Tag("")); return err }, "ghcr.io/acme/api:"},
		{"bad digest", func(ctx context.Context) error { _, err := c.Exists(ctx, api.Digest("sha256:../x")); return err }, "ghcr.io/acme/api@sha256:../x"},
		{"bad digest in facts", func(ctx context.Context) error { _, err := c.Facts(ctx, api.Digest("md5:00"), 0); return err }, "ghcr.io/acme/api@md5:00"},
		{"no repository", func(ctx context.Context) error { _, err := c.Tags(ctx, name.Repository{}); return err }, "no repository named"},
	}
	for _, l := range lookups {
		err := l.call(ctx)
		if err == nil || !strings.Contains(err.Error(), l.want) {
			t.Errorf("%s: %v, want an error naming %q", l.name, err, l.want)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests for names that are not names, want none: %v", n, srv.Requests())
	}
	// The same repository spelled as Docker Hub's is printed as Docker does.
	_, err := c.Digest(ctx, registrytest.Tag(t, "nginx", "1.0?"))
	if err == nil || !strings.HasPrefix(err.Error(), "resolve digest docker.io/library/nginx:1.0?: ") {
		t.Errorf("Digest(nginx:1.0?) = %v, want it to name docker.io/library/nginx", err)
	}
}
