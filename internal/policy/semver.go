package policy

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// semVer orders versions as Masterminds semver does (`v` prefix and `1.2`
// accepted). A candidate keeps the current tag's `v` prefix (or its absence)
// and states at least as many numbers (up to three);
// prereleases are candidates only when the current tag is one or when the
// range mentions one (Masterminds' constraint semantics); the range, when
// set, must hold.
type semVer struct {
	rng *semver.Constraints // nil without a range
}

var _ strategy = semVer{}

type semVersion struct {
	v       *semver.Version
	vPrefix bool
}

var _ version = semVersion{}

// newSemVer compiles the range. exact is the version an exact range
// ("1.24.3", "=1.24.3") asks for, nil otherwise: that one version may be
// proposed even below the current tag.
func newSemVer(rng string) (s semVer, exact version, err error) {
	if rng == "" {
		return semVer{}, nil, nil
	}
	c, err := semver.NewConstraint(rng)
	if err != nil {
		return semVer{}, nil, err
	}
	s = semVer{rng: c}
	if v := exactVersion(rng); v != "" {
		// The constraint compiled, so the version parses.
		exact, _ = s.parse(v)
	}
	return s, exact, nil
}

// exactRange matches a range that names one full version: Masterminds reads
// "1.24.3" and "=1.24.3" as equality, but "1.24" as "any 1.24.x".
var exactRange = regexp.MustCompile(`^=?\s*(v?\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)$`)

func exactVersion(rng string) string {
	m := exactRange.FindStringSubmatch(strings.TrimSpace(rng))
	if m == nil {
		return ""
	}
	return m[1]
}

func (semVer) name() string { return "semver" }

func (semVer) parse(s string) (version, error) {
	v, err := semver.NewVersion(s)
	if err != nil {
		return nil, err
	}
	return semVersion{v: v, vPrefix: strings.HasPrefix(s, "v")}, nil
}

func (s semVer) accepts(cur, v version) bool {
	c, _ := cur.(semVersion) // zero when pinning (cur == nil)
	sv := v.(semVersion)
	if cur != nil && (c.vPrefix != sv.vPrefix || sv.precision() < c.precision()) {
		return false
	}
	curPre := c.v != nil && c.v.Prerelease() != ""
	if s.rng != nil {
		rng := *s.rng // a copy: the Policy is shared, IncludePrerelease is per call
		rng.IncludePrerelease = curPre
		return rng.Check(sv.v)
	}
	return sv.v.Prerelease() == "" || curPre
}

// precision is how many numbers the tag states, counting at most three:
// Masterminds reads 3050 as 3050.0.0, but a tag that states fewer numbers
// than the current one is an alias or another scheme, never a newer
// version (1.4.5 never moves to 3050, nor 1.25.3 to 1.26).
func (a semVersion) precision() int {
	core, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a.v.Original(), "v"), "V"), "+")
	core, _, _ = strings.Cut(core, "-")
	return min(strings.Count(core, ".")+1, 3)
}

func (a semVersion) compare(o version) int { return a.v.Compare(o.(semVersion).v) }

// numbers are major, minor, patch: what `allow` keeps fixed.
func (a semVersion) numbers() []string {
	return []string{
		strconv.FormatUint(a.v.Major(), 10),
		strconv.FormatUint(a.v.Minor(), 10),
		strconv.FormatUint(a.v.Patch(), 10),
	}
}
