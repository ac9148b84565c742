package registry

import (
	"fmt"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/imagebot/imagebot/internal/imagename"
)

// routeRef routes ref's repository and checks its tag or digest, which
// goes into a URL path. pkg/name checks one only when it parses a whole
// reference, not in Repository.Tag and Repository.Digest, with which the
// pipeline makes references of the names it parsed once; and a tag may
// come from a registry's listing, which nothing else checks.
func (c *Client) routeRef(ref name.Reference) (route, error) {
	rt, err := c.route(ref.Context())
	if err != nil {
		return rt, err
	}
	// pkg/name has no check of a tag or digest alone: it checks them
	// after the shortest repository there is, which it parses in no time.
	switch r := ref.(type) {
	case name.Tag:
		// "5000/x" would parse, as the port and path of a registry.
		var t name.Tag
		if t, err = name.NewTag("x:" + r.TagStr()); err == nil && t.TagStr() != r.TagStr() {
			err = fmt.Errorf("tag %q is not a tag", r.TagStr())
		}
	case name.Digest:
		_, err = name.NewDigest("x@" + r.DigestStr())
	default:
		err = fmt.Errorf("%s is neither a tag nor a digest", ref)
	}
	return rt, err
}

// refString spells ref for messages as imagebot spells names
// ("docker.io/library/nginx:1.27.3").
func refString(ref name.Reference) string {
	sep := ":"
	if _, ok := ref.(name.Digest); ok {
		sep = "@"
	}
	return imagename.String(ref.Context()) + sep + ref.Identifier()
}
