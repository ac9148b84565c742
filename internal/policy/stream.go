package policy

// stream is the default strategy: a candidate must belong to the current
// tag's stream (same prefix, same variants exactly, same form of build
// counter and commit id; see tag), state its version at least as precisely,
// and be a release unless the current tag is a prerelease of the same
// version. Versions compare as numbers, then a release above its
// prereleases, then the build counter. Commit ids are never compared.
type stream struct {
	// windows: the listing holds Windows images, where 1809 is a release of
	// the OS (a variant), not a version.
	windows bool
}

var _ strategy = stream{}

var _ version = (*tag)(nil)

func (stream) name() string { return "stream" }

func (s stream) parse(v string) (version, error) { return parseTag(v, s.windows), nil }

// accepts keeps the current tag's stream. When pinning (cur == nil) every
// stream competes, but only releases with a version or an id: `latest` is
// a release, and each candidate tried costs a digest request.
func (stream) accepts(cur, v version) bool {
	t := v.(*tag)
	if cur == nil {
		return (t.versioned() || t.id) && t.pre.word == ""
	}
	c := cur.(*tag)
	if !t.versioned() || t.stream() != c.stream() || !t.preciseFor(c) {
		return false
	}
	// A release never moves to a prerelease; a prerelease moves to a release
	// at or above it, or to a newer prerelease of its own version.
	return t.pre.word == "" || (c.pre.word != "" && compareTuple(t.version, c.version) == 0)
}

// compare orders by version, then a release above its prereleases, then
// the build counter; a tag without a version (a bare commit id) is below
// every version.
func (a *tag) compare(o version) int {
	b := o.(*tag)
	if a.versioned() != b.versioned() {
		if a.versioned() {
			return 1
		}
		return -1
	}
	if c := compareTuple(a.version, b.version); c != 0 {
		return c
	}
	if c := a.pre.compare(b.pre); c != 0 {
		return c
	}
	return compareTuple(a.counter, b.counter)
}

// numbers are the version's numbers: what `allow` keeps fixed.
func (a *tag) numbers() []string { return a.version }
