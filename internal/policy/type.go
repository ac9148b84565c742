package policy

// Type classifies a move from one tag to another for the plan and the PR:
//
//   - "digest" when from == to (only the digest changes);
//   - "pin" when from floats next to to (no version of its own, as latest
//     or alpine3.20; or to states its numbers and more, as 1.26 -> 1.26.1;
//     see Mutable);
//   - "build" when only the build counter or commit changes (SUSE's
//     2.6.2-rev1-b5.1 -> 2.6.2-rev1-b5.2, a CVE rebuild of one version;
//     git describe's v2.4.0-12-g3a4b5c6 -> v2.4.0-31-g9d8e7f6), or between
//     dated commit builds of one stream (main-20240601-3f9a2c1 ->
//     main-20240612-a0b1c2d);
//   - otherwise "major", "minor" or "patch" by the index (0, 1, >= 2) of the
//     first number of the version that differs (a missing number counts as
//     0: 26 -> 26.0.1 is a patch); a prerelease moving to its
//     release, or tags whose versions are equal otherwise (1.27.3 ->
//     1.27.3-bookworm), count as "patch".
func Type(from, to string) string {
	if from == to {
		return "digest"
	}
	win := isWindowsTag(from) || isWindowsTag(to)
	a, b := parseTag(from, win), parseTag(to, win)
	if a.floats() || extends(b, a) { // Mutable(from, []string{to})
		return "pin"
	}
	va, vb := a.version, b.version
	if !a.versioned() || !b.versioned() {
		va, vb = digitRuns(from), digitRuns(to)
	} else if a.stream() == b.stream() && (a.id && a.dated || compareTuple(va, vb) == 0 && a.pre.compare(b.pre) == 0) {
		// The same version rebuilt, or a dated commit build
		// (main-20240601-3f9a2c1): its date says when, not what changed.
		return "build"
	}
	// A missing number counts as 0: 26_35 -> 26.0.1_8 is a patch.
	at := func(v []string, i int) string {
		if i < len(v) {
			return v[i]
		}
		return "0"
	}
	i := 0
	for i < max(len(va), len(vb)) && compareDigits(at(va, i), at(vb, i)) == 0 {
		i++
	}
	switch {
	case i == max(len(va), len(vb)):
		return "patch"
	case i == 0:
		return "major"
	case i == 1:
		return "minor"
	}
	return "patch"
}
