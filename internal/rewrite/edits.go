package rewrite

import (
	"fmt"
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/scan"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// Edits returns the edits that make one reference hold c's tag and digest.
func Edits(c plan.Change) ([]Edit, error) {
	r := c.Ref
	// Only text that is a tag or a digest may be written: nothing else can
	// enter a user's file through a registry's tag listing.
	if err := checkText(r, c.Tag); err != nil {
		return nil, err
	}
	if c.Digest != "" {
		if _, err := name.NewDigest("example.com/x@" + c.Digest); err != nil {
			return nil, fmt.Errorf("refusing to write %q: not a valid digest", c.Digest)
		}
	}
	var edits []Edit
	if c.Tag != "" && c.Tag != r.Tag {
		e, err := fieldEdit(r.TagField, r.Tag, c.Tag)
		if err != nil {
			return nil, fmt.Errorf("cannot write tag %s: %w", c.Tag, err)
		}
		edits = append(edits, e)
	}
	if c.Digest != "" && c.Digest != r.Digest {
		e, err := fieldEdit(r.DigestField, r.Digest, c.Digest)
		if err != nil {
			return nil, fmt.Errorf("cannot write digest of %s:%s: %w", r.Name, c.Tag, err)
		}
		edits = append(edits, e)
	}
	return edits, nil
}

// checkText refuses a new tag that is not one: an image tag (and a Flux
// OCIRepository's, an OCI tag too) as the registry spells it, a chart
// version as one exact semver version ('+' allowed, never a range).
func checkText(r scan.Ref, tag string) error {
	if tag == "" {
		return nil
	}
	if r.Git != nil {
		// A git tag, written into a URL's path or query as often as into
		// a YAML value: a name git allows that needs no escaping there.
		if strings.ContainsAny(tag, " \t~^:?*[\\&#%") || strings.Contains(tag, "..") || (r.Git.Asset != "" && strings.Contains(tag, "/")) {
			return fmt.Errorf("refusing to write %q: not a git tag imagebot writes into a URL", tag)
		}
		return nil
	}
	if r.Chart != nil && r.Kind != scan.KindOCIRepository {
		if _, err := semver.StrictNewVersion(strings.TrimPrefix(tag, "v")); err != nil {
			return fmt.Errorf("refusing to write %q: not one exact chart version", tag)
		}
		return nil
	}
	if _, err := name.NewTag("example.com/x:" + tag); err != nil {
		return fmt.Errorf("refusing to write %q: not a valid tag", tag)
	}
	return nil
}

func fieldEdit(f scan.Field, old, text string) (Edit, error) {
	if !f.OK {
		return Edit{}, fmt.Errorf("no place for it here (add a digest key by hand once)")
	}
	if old == "" && f.Span.Len() == 0 {
		return Edit{Span: f.Span, Text: f.Prefix + text}, nil
	}
	if f.Scalar {
		text = quote(old, text)
	}
	return Edit{Span: f.Span, Text: text}, nil
}

// quote double-quotes a new plain scalar that YAML would read as something
// other than a string: `tag: 1.30` is the float 1.3 to Helm, which would
// deploy the wrong tag. A plain integer replacing a plain integer stays plain,
// as the file's author chose.
func quote(old, text string) string {
	nk := resolve(text)
	if nk == "string" || (nk == "int" && resolve(old) == "int") {
		return text
	}
	return `"` + text + `"`
}

// resolve names the YAML 1.2 type of a plain scalar.
func resolve(plain string) string {
	var m map[string]any
	if err := kyaml.Unmarshal([]byte("v: "+plain), &m); err != nil {
		return "string"
	}
	v := m["v"]
	switch v.(type) {
	case string:
		return "string"
	case int, int64, uint64:
		return "int"
	case nil:
		return "null"
	default:
		return fmt.Sprintf("%T", v)
	}
}
