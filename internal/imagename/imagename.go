package imagename

import (
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
)

// dockerHub is how Docker, and imagebot, write Docker Hub's host; pkg/name
// calls it name.DefaultRegistry ("index.docker.io").
const dockerHub = "docker.io"

// IsDockerHub reports whether host is one of Docker Hub's names:
// "docker.io" (Docker's), "index.docker.io" (pkg/name's) or
// "registry-1.docker.io" (the host Docker Hub's API answers on, which
// Argo CD writes for Docker Hub's OCI charts). They are one registry, with
// one mirror, one set of credentials and one cache.
func IsDockerHub(host string) bool {
	switch strings.ToLower(host) {
	case dockerHub, name.DefaultRegistry, "registry-1.docker.io":
		return true
	}
	return false
}

// Parse parses a repository name as written ("nginx", "ghcr.io/acme/api",
// "127.0.0.1:5000/app") into its canonical value: the implied registry and
// "library/" filled in, so that every spelling of one repository parses to
// an equal value.
func Parse(s string) (name.Repository, error) {
	r, err := name.NewRepository(s)
	if err != nil {
		return name.Repository{}, err
	}
	if IsDockerHub(r.RegistryStr()) && r.RegistryStr() != name.DefaultRegistry {
		// registry-1.docker.io/bitnamicharts/nginx is Docker Hub's
		// docker.io/bitnamicharts/nginx, one repository however written.
		hub, err := name.NewRegistry(name.DefaultRegistry)
		if err != nil {
			return name.Repository{}, err
		}
		r = hub.Repo(r.RepositoryStr())
	}
	// "nginx" and "library/nginx" differ inside name.Repository although
	// they name one repository: rebuild it from the full path.
	return r.Registry.Repo(r.RepositoryStr()), nil
}

// CanonicalHost spells a registry host as Parse keys it: Docker Hub's
// names become name.DefaultRegistry, other hosts are lowercased.
func CanonicalHost(host string) string {
	if IsDockerHub(host) {
		return name.DefaultRegistry
	}
	return strings.ToLower(host)
}

// String spells r as imagebot prints it: "docker.io/library/nginx",
// "ghcr.io/acme/api".
func String(r name.Repository) string {
	if r.RegistryStr() == name.DefaultRegistry {
		return dockerHub + "/" + r.RepositoryStr()
	}
	return r.Name()
}

// Normalize is String of Parse: a repository name in Docker's canonical
// spelling ("nginx" -> "docker.io/library/nginx").
func Normalize(s string) (string, error) {
	r, err := Parse(s)
	if err != nil {
		return "", err
	}
	return String(r), nil
}
