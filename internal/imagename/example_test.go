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
