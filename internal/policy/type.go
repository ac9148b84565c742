package policy

// Type classifies a move from one tag to another for the plan and the PR:
//
//   - "digest" when from == to (only the digest changes);
//   - "pin" when from floats next to to (no digits, as latest; or to extends
//     its numbers, as 1.26 -> 1.26.1; see Mutable);
//   - otherwise "major", "minor" or "patch" by the index (0, 1, >= 2) of the
//     first number that differs between the two tags' digit runs; tags whose
//     numbers are all equal (1.27.3 -> 1.27.3-bookworm) count as "patch".
func Type(from, to string) string {
	if from == to {
		return "digest"
	}
	if Mutable(from, []string{to}) {
		return "pin"
	}
	a, b := split(from).nums, split(to).nums
	i := 0
	for i < len(a) && i < len(b) && compareDigits(a[i], b[i]) == 0 {
		i++
	}
	switch {
	case i == len(a) && i == len(b):
		return "patch"
	case i == 0:
		return "major"
	case i == 1:
		return "minor"
	}
	return "patch"
}
