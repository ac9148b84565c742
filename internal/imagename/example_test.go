package imagename_test

import (
	"fmt"

	"github.com/imagebot/imagebot/internal/imagename"
)

// Every spelling of one repository parses to one value, which a map can
// key, and is printed as Docker writes it.
func ExampleParse() {
	a, _ := imagename.Parse("nginx")
	b, _ := imagename.Parse("index.docker.io/library/nginx")
	c, _ := imagename.Parse("docker.io/nginx")
	fmt.Println(a == b, b == c, imagename.String(a))
	d, _ := imagename.Parse("ghcr.io/acme/api")
	fmt.Println(imagename.String(d), d.RegistryStr(), d.RepositoryStr())
	// Output:
	// true true docker.io/library/nginx
	// ghcr.io/acme/api ghcr.io acme/api
}

func ExampleNormalize() {
	for _, s := range []string{"nginx", "bitnami/redis", "127.0.0.1:5000/app", "Nginx"} {
		n, err := imagename.Normalize(s)
		fmt.Println(n, err != nil)
	}
	// Output:
	// docker.io/library/nginx false
	// docker.io/bitnami/redis false
	// 127.0.0.1:5000/app false
	//  true
}

// A digest is shown by its first 12 hex digits; what is not a digest is
// shown as it is.
func ExampleShortDigest() {
	fmt.Println(imagename.ShortDigest("sha256:4f53cbe0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c"))
	fmt.Println(imagename.ShortDigest("sha256:abc"))
	fmt.Println(imagename.ShortDigest("latest"))
	// Output:
	// 4f53cbe0a1b2
	// sha256:abc
	// latest
}
