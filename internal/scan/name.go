package scan

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/imagebot/imagebot/internal/imagename"
)

// parsed is a reference string split into its parts, with byte offsets
// relative to the start of the string, and its name parsed.
type parsed struct {
	name, tag, digest     string
	repo                  name.Repository
	tagStart, digestStart int // -1 when absent
}

// parseRef splits "name[:tag][@digest]" and validates each part with
// go-containerregistry. It never guesses: anything that does not parse as a
// reference (variables, templates, prose) is an error, which says why in a
// sentence short enough for a message whatever the value's length.
func parseRef(s string) (parsed, error) {
	p, err := splitRef(s)
	if err != nil {
		return p, err
	}
	p.repo, err = parseName(p.name)
	return p, err
}

// splitRef is parseRef but for the name, which it splits off unchecked: a
// Helm map's tag is parsed as the tail of a reference whose name is
// elsewhere.
func splitRef(s string) (parsed, error) {
	p := parsed{tagStart: -1, digestStart: -1}
	if strings.ContainsAny(s, "\n\r") {
		return p, errSeveralLines
	}
	base := s
	if i := strings.IndexByte(s, '@'); i >= 0 {
		base, p.digest, p.digestStart = s[:i], s[i+1:], i+1
		if err := checkDigest(p.digest); err != nil {
			return p, err
		}
	}
	p.name = base
	if i := strings.LastIndexByte(base, ':'); i > strings.LastIndexByte(base, '/') {
		p.name, p.tag, p.tagStart = base[:i], base[i+1:], i+1
		if err := checkTag(p.tag); err != nil {
			return p, err
		}
	}
	return p, nil
}

var errSeveralLines = errors.New("a value over several lines is not an image reference")

// checkTag says why a tag is not valid: 1 to 128 of [A-Za-z0-9_.-].
func checkTag(tag string) error {
	if tag == "" {
		return errors.New("empty tag after ':'")
	}
	if n := utf8.RuneCountInString(tag); n > 128 {
		return fmt.Errorf("tag is %d characters long, more than 128", n)
	}
	// The characters go-containerregistry's name.NewTag accepts, checked
	// here rather than by building a whole name.Tag for every value of a
	// Helm values file.
	for i := 0; i < len(tag); i++ {
		if c := tag[i]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			return fmt.Errorf("tag %s may hold only letters, digits, '_', '.' and '-'", quote(tag))
		}
	}
	return nil
}

func checkDigest(d string) error {
	if _, err := name.NewDigest("example.com/x@" + d); err != nil {
		return fmt.Errorf("digest %s is not algorithm:hex (sha256: and 64 hex digits)", quote(d))
	}
	return nil
}

// parseName parses an image name, once for the whole pipeline: the
// reference carries the result (Ref.Repo).
func parseName(n string) (name.Repository, error) {
	if n == "" {
		return name.Repository{}, errors.New("no image name before the tag")
	}
	r, err := imagename.Parse(n)
	if err != nil {
		if len(n) > 255 {
			return r, fmt.Errorf("image name is %d characters long, more than 255", len(n))
		}
		return r, fmt.Errorf("image name %s is not [registry[:port]/]path with lowercase letters, digits, '.', '_', '-' and '/'", quote(n))
	}
	return r, nil
}
