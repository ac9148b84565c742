package imagename

import "strings"

// ShortDigest is how imagebot prints a digest to people, in PR bodies,
// notices and held-back reasons: the first 12 hex digits, as `docker images`
// shows an image ID ("sha256:4f53...e1" -> "4f53cbe0a1b2"). Anything that is
// not "<algorithm>:<more than 12 characters>" is returned as it is, so a
// malformed digest still reaches the reader instead of vanishing.
func ShortDigest(d string) string {
	if _, hex, ok := strings.Cut(d, ":"); ok && len(hex) > 12 {
		return hex[:12]
	}
	return d
}
