package registry

import "time"

// Info is what a registry says about one image beyond its tags: the image
// config's created time and OCI labels, and the platforms of an index.
type Info struct {
	Digest    string
	Created   time.Time
	Labels    map[string]string
	Platforms []string // "linux/amd64", ...; one entry for a single image
}
