package scan

import (
	"fmt"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
)

func normalize(repo string) (string, error) {
	r, err := name.NewRepository(repo)
	if err != nil {
		return "", err
	}
	return trimDockerIO(r.Name()), nil
}

// parsed is a reference string split into its parts, with byte offsets
// relative to the start of the string.
type parsed struct {
	name, tag, digest     string
	tagStart, digestStart int // -1 when absent
}

// parseRef splits "name[:tag][@digest]" and validates each part with
// go-containerregistry. It never guesses: anything that does not parse as a
// reference (variables, templates, prose) is an error.
func parseRef(s string) (parsed, error) {
	p := parsed{tagStart: -1, digestStart: -1}
	base := s
	if i := strings.IndexByte(s, '@'); i >= 0 {
		base, p.digest, p.digestStart = s[:i], s[i+1:], i+1
		if _, err := name.NewDigest("example.com/x@" + p.digest); err != nil {
			return p, fmt.Errorf("bad digest in %q: %w", s, err)
		}
	}
	p.name = base
	if i := strings.LastIndexByte(base, ':'); i > strings.LastIndexByte(base, '/') {
		p.name, p.tag, p.tagStart = base[:i], base[i+1:], i+1
		if _, err := name.NewTag(base); err != nil {
			return p, fmt.Errorf("bad tag in %q: %w", s, err)
		}
	}
	if _, err := name.NewRepository(p.name); err != nil {
		return p, fmt.Errorf("bad image name %q: %w", s, err)
	}
	return p, nil
}
