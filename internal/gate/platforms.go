package gate

import (
	"fmt"
	"slices"
	"strings"
)

// CheckPlatforms is the platforms gate. have are the candidate's
// platforms; want are the current image's (keep) or the policy's list.
// It returns why the candidate is held, or "" when it has every platform
// wanted. A single-platform candidate against a multi-platform current
// image fails keep: nodes of the other architectures could not run it.
func CheckPlatforms(have, want []string, keep bool) string {
	got := map[string]bool{}
	for _, p := range have {
		got[Normalize(p)] = true
	}
	var missing []string
	for _, p := range want {
		if n := Normalize(p); !got[n] && !slices.Contains(missing, n) {
			missing = append(missing, n)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	whose := "policy asks for"
	if keep {
		whose = "current has"
	}
	return fmt.Sprintf("no %s (%s %s)", strings.Join(missing, ", "), whose, strings.Join(normalizeAll(want), ", "))
}

// Normalize spells a platform as containerd matches it: lower case, and
// arm64's default variant v8 dropped, so "linux/arm64/v8" in an index
// satisfies "linux/arm64" in a policy.
func Normalize(p string) string {
	p = strings.ToLower(strings.TrimSpace(p))
	if rest, ok := strings.CutSuffix(p, "/arm64/v8"); ok {
		return rest + "/arm64"
	}
	return p
}

func normalizeAll(ps []string) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		if n := Normalize(p); !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}
