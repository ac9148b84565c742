package scan

import (
	"strings"
	"testing"

	"github.com/imagebot/imagebot/internal/imagename"
)

// TestRepo: each kind of reference carries its name parsed once and
// normalized, so that every spelling of one repository is one value, which
// the plan groups by and asks the registry with; the name as written stays
// for the rewriter.
func TestRepo(t *testing.T) {
	src := strings.Join([]string{
		"containers:",
		"  - image: nginx:1.25",
		"  - image: docker.io/nginx:1.25",
		"  - image: index.docker.io/library/nginx:1.25",
		"chart:",
		"  image: {registry: docker.io, repository: library/nginx, tag: \"1.25\"}",
		"images:",
		"  - {name: web, newName: nginx, newTag: \"1.25\"}",
		"appVersion: 1.25 # imagebot: tag docker.io/library/nginx",
		"other:",
		"  - image: ghcr.io/acme/api:v1",
		"",
	}, "\n")
	res := File("f.yaml", []byte(src))
	if len(res.Refs) != 7 || len(res.Skipped)+len(res.Problems) != 0 {
		t.Fatalf("%d references, skipped %v, problems %v", len(res.Refs), res.Skipped, res.Problems)
	}
	nginx, err := imagename.Parse("nginx")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Refs[:6] {
		if r.Repo != nginx || r.Image != "docker.io/library/nginx" {
			t.Errorf("line %d (%s, written %q): Repo %#v, Image %q; want one value for every spelling of nginx", r.Line, r.Kind, r.Name, r.Repo, r.Image)
		}
	}
	if api := res.Refs[6]; api.Repo.RegistryStr() != "ghcr.io" || api.Repo.RepositoryStr() != "acme/api" || api.Image != "ghcr.io/acme/api" || api.Name != "ghcr.io/acme/api" {
		t.Errorf("ghcr.io/acme/api: Repo %#v, Image %q, Name %q", api.Repo, api.Image, api.Name)
	}
	if got := res.Refs[0].Name; got != "nginx" {
		t.Errorf("Name = %q, want nginx as written", got)
	}
}
