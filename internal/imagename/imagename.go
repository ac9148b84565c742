package imagename

import "github.com/google/go-containerregistry/pkg/name"

// dockerHub is how Docker, and imagebot, write Docker Hub's host; pkg/name
// calls it name.DefaultRegistry ("index.docker.io").
const dockerHub = "docker.io"

// Parse parses a repository name as written ("nginx", "ghcr.io/acme/api",
// "127.0.0.1:5000/app") into its canonical value: the implied registry and
// "library/" filled in, so that every spelling of one repository parses to
// an equal value.
func Parse(s string) (name.Repository, error) {
	r, err := name.NewRepository(s)
	if err != nil {
		return name.Repository{}, err
	}
	// "nginx" and "library/nginx" differ inside name.Repository although
	// they name one repository: rebuild it from the full path.
	return r.Registry.Repo(r.RepositoryStr()), nil
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
