package gate

import (
	"regexp"
	"time"

	"github.com/imagebot/imagebot/internal/imagefacts"
)

// Spec is the gates one image's policy asks for. The zero value asks for
// none, and then the plan makes no request for them.
type Spec struct {
	// MinAge holds back candidates built less than this long ago.
	MinAge time.Duration
	// DigestSettle holds back a new digest of the current tag (a re-push)
	// until its newest platform image is this old.
	DigestSettle time.Duration
	// Platforms is the platforms gate: off unless Keep or List is set.
	Platforms Platforms
	// Signature, when set, asks for a cosign signature on the candidate.
	Signature *Signature
}

// Platforms asks a candidate either for every platform of the current
// image (Keep) or for each platform of List ("linux/arm64", "linux/arm/v7").
type Platforms struct {
	Keep bool
	List []string
}

// On reports whether the gate asks for anything.
func (p Platforms) On() bool { return p.Keep || len(p.List) > 0 }

// Signature is whose signature a candidate must carry: the holder of the
// public key in the repository file Key, or a keyless signer whose
// certificate identity matches Identity and names Issuer. Identity is
// matched as given: the config anchors it at both ends.
type Signature struct {
	Key      string
	Identity *regexp.Regexp
	Issuer   string
}

// Active reports whether any gate is on.
func (s Spec) Active() bool {
	return s.MinAge > 0 || s.DigestSettle > 0 || s.Platforms.On() || s.Signature != nil
}

// Need is what the gates of s need to know about a candidate from its
// manifest and config; digestUpdate is true for a new digest of the
// current tag, where DigestSettle applies.
func (s Spec) Need(digestUpdate bool) imagefacts.Need {
	var n imagefacts.Need
	if s.MinAge > 0 {
		n |= imagefacts.NeedCreated
	}
	if s.Platforms.On() {
		n |= imagefacts.NeedPlatforms
	}
	if digestUpdate && s.DigestSettle > 0 {
		n |= imagefacts.NeedNewest
	}
	return n
}
