package policy

import (
	"slices"
	"strings"
)

// The words below are what the stream rule knows about real tag schemes.
// Everything it does not know is a variant, kept exactly: an unknown word
// can only keep a tag from moving, never move it somewhere wrong.

// versionMarkers, glued to the number that follows, mark it as the version:
// v1.7.0, r2024.1, build9.
var versionMarkers = words("v", "ver", "version", "r", "rel", "release", "b", "build", "bld")

// buildWords count builds, so that a long number after them is a build
// number and not a commit id: build-1234567, run-9876543210.
var buildWords = words("build", "bld", "b", "r", "rev", "run", "pipeline", "ci", "job")

// counterWords, glued to a number after the version (or before it after a
// separator), count builds of that version: -r7 (bitnami), -rev1-b5.1
// (SUSE), -p1, -build5, -ls212 (linuxserver.io), .GA-20 (Red Hat), and the
// Kubernetes distributions' builds of one upstream release, whose words
// hold digits of their own: -k3s2, -rke2r1, -k0s.1.
var counterWords = words("r", "rev", "b", "build", "bld", "p", "ls", "ga", "k3s", "k0s", "rke2r")

// digitCounterWords are the counterWords that hold digits, so that k3s2
// reads as k3s and 2.
var digitCounterWords = []string{"rke2r", "k3s", "k0s"}

// upperCounterWords count builds only in capitals: SQL Server's cumulative
// updates (2022-CU13-ubuntu-22.04), while cu121 names a CUDA release, a
// variant. A security update on top (2022-CU13-GDR1-ubuntu-22.04) stays a
// variant: as a counter it would make the plain CU13 float over it.
var upperCounterWords = []string{"CU"}

// numberedOS are operating systems whose release number may follow after a
// dash before the version: debian-12 and ubuntu-22.04 are variants, while
// jammy-20240227 (a codename, then a date) has a version.
var numberedOS = words("alpine", "debian", "ubuntu", "ubi", "centos", "rocky", "rockylinux", "alma", "almalinux",
	"fedora", "rhel", "el", "oraclelinux", "ol", "amazonlinux", "al", "amzn", "sles", "sle", "leap", "opensuse",
	"photon", "mariner", "azurelinux", "cbl", "windows", "windowsservercore", "servercore", "nanoserver", "ltsc")

// numberedWords are the variant words whose number, after a separator,
// names a release of what the word names: an operating system (debian-12,
// ubuntu-22.04) or a runtime, language or library (eclipse-temurin-21,
// otp-26, scala_2.12). After any other word a number counts builds
// (3.10-main-412); a date counts builds after every word (php-202301051200).
var numberedWords = union(numberedOS, words("jdk", "jre", "java", "openjdk", "temurin", "corretto", "amazoncorretto",
	"semeru", "sapmachine", "zulu", "liberica", "graalvm", "dragonwell", "node", "nodejs", "python", "py", "php", "ruby",
	"go", "golang", "dotnet", "aspnet", "net", "perl", "rust", "erlang", "otp", "elixir", "scala", "kotlin", "gradle",
	"maven", "lua", "luajit", "gcc", "llvm", "clang", "cuda", "cudnn", "rocm", "pg", "postgres", "postgresql", "mysql",
	"mariadb", "mongo", "mongodb", "redis", "openssl", "glibc", "musl", "qt", "swift", "dart", "julia", "haskell", "ghc",
	"tomcat", "jetty", "wildfly", "spark", "hadoop", "kafka", "flink"))

func union(ms ...map[string]bool) map[string]bool {
	out := map[string]bool{}
	for _, m := range ms {
		for w := range m {
			out[w] = true
		}
	}
	return out
}

func words(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// windowsMarkers in a listing say that it holds Windows images.
var windowsMarkers = []string{"windowsservercore", "nanoserver", "servercore", "ltsc20", "windows"}

// windowsListing reports whether tags hold Windows images, where 1809 and
// 2004 name Windows releases: mcr.microsoft.com/windows/servercore:1809 is
// Windows Server 2019, and 2004 is another OS, not a newer version.
func windowsListing(tags []string) bool {
	for _, t := range tags {
		if isWindowsTag(t) {
			return true
		}
	}
	return false
}

func isWindowsTag(t string) bool {
	l := strings.ToLower(t)
	return slices.ContainsFunc(windowsMarkers, func(m string) bool { return strings.Contains(l, m) })
}

var windowsReleases = words("1607", "1709", "1803", "1809", "1903", "1909", "2004", "2009")

// isWindowsRelease reports whether s names a Windows release: 20H2, 21H2
// always; 1809 and the like only among Windows tags.
func isWindowsRelease(s string, windows bool) bool {
	if len(s) == 4 && isDigit(s[0]) && isDigit(s[1]) && (s[2] == 'H' || s[2] == 'h') && (s[3] == '1' || s[3] == '2') {
		return true
	}
	return windows && windowsReleases[s]
}

// isHash reports whether s is a git commit id: seven or more lowercase hex
// characters with both digits and letters (3f9a2c1, a0b1c2d, 40-hex ids),
// or git describe's g followed by hex (g3a4b5c6).
func isHash(s string) bool {
	if len(s) >= 8 && s[0] == 'g' && isHex(s[1:]) {
		return true
	}
	return len(s) >= 7 && isHex(s) && hasDigit(s) && strings.ContainsAny(s, "abcdef")
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) && (s[i] < 'a' || s[i] > 'f') {
			return false
		}
	}
	return s != ""
}

// looksLikeID reports whether a number standing alone is more likely a
// commit id than a version: a short git hash is all digits one time in 27,
// and proposing 1234567 as a newer major version is Kargo's strictSemvers
// lesson. Seven or more digits are an id unless they read as a date or a
// timestamp (20240612, 202406121530, 1699548029).
func looksLikeID(s string) bool {
	return len(s) >= 7 && !strings.Contains(s, ".") && !dateLike(s)
}

// dateLike reports whether the digits s read as YYYYMMDD, optionally
// followed by hours, minutes, seconds and fractions, or as Unix seconds
// between 2001 and 2033.
func dateLike(s string) bool {
	switch {
	case len(s) == 10 && s[0] == '1':
		return true
	case len(s) < 8 || len(s) == 9 || len(s) == 11 || len(s) == 13 || len(s) > 17:
		return false
	}
	num := func(i int) int { return int(s[i]-'0')*10 + int(s[i+1]-'0') }
	year := num(0)*100 + num(2)
	if year < 1970 || year > 2099 || num(4) < 1 || num(4) > 12 || num(6) < 1 || num(6) > 31 {
		return false
	}
	for i, limit := range []int{24, 60, 60} {
		if 8+2*i+2 <= len(s) && num(8+2*i) >= limit {
			return false
		}
	}
	return true
}

// prerelease is the -rc.1, b2 or -beta3 part of a tag. The zero value is a
// release.
type prerelease struct {
	word string   // as written, lowercase: "rc", "b", "beta"
	num  []string // its numbers: [1] for rc.1, nil for -alpha
}

// rank orders the kinds of prerelease: dev before alpha before beta before
// milestone before release candidates.
func (p prerelease) rank() int {
	switch p.word {
	case "dev":
		return 0
	case "a", "alpha", "ea":
		return 1
	case "b", "beta":
		return 2
	case "m", "milestone":
		return 3
	}
	return 4 // c, rc, pre, preview
}

// compare orders two prereleases of one version; a release (the zero
// value) is above every prerelease.
func (p prerelease) compare(o prerelease) int {
	switch {
	case p.word == "" && o.word == "":
		return 0
	case p.word == "":
		return 1
	case o.word == "":
		return -1
	}
	if c := p.rank() - o.rank(); c != 0 {
		return c
	}
	return compareTuple(p.num, o.num)
}

// Prerelease words. Single letters count only glued to the version
// (3.13.0a1, 3.12.0b2, 1.0c1): after a dash, b5 is SUSE's build counter.
var (
	gluedPreWords    = []string{"alpha", "beta", "preview", "pre", "rc", "dev", "ea", "milestone", "a", "b", "c", "m"}
	separatePreWords = []string{"alpha", "beta", "preview", "pre", "rc", "dev", "ea", "milestone", "m"}
	// needNumber are prerelease words only with a number: 1.2.3-dev is a
	// variant, 1.0.0.dev1 a prerelease.
	needNumber = words("a", "b", "c", "m", "dev")
)

// gluedPrerelease reads a prerelease glued to the version: rc2, b2, beta1.
func gluedPrerelease(tail string) (prerelease, bool) {
	return readPrerelease(strings.ToLower(tail), gluedPreWords)
}

// separatePrerelease reads a prerelease segment after a separator: rc,
// rc1, beta3, M01.
func separatePrerelease(seg string) (prerelease, bool) { return readPrerelease(seg, separatePreWords) }

func isPrerelease(seg string) bool {
	_, ok := separatePrerelease(seg)
	return ok
}

func readPrerelease(s string, vocabulary []string) (prerelease, bool) {
	for _, w := range vocabulary {
		rest, ok := strings.CutPrefix(s, w)
		if !ok || (rest != "" && !isNumber(rest)) || (rest == "" && needNumber[w]) {
			continue
		}
		p := prerelease{word: w}
		if rest != "" {
			p.num = strings.Split(rest, ".")
		}
		return p, true
	}
	return prerelease{}, false
}

// counterWord returns the counter word, as written, that the segment seg
// after the version starts with when a number follows it (r7, rev1, b5.1,
// k3s2, CU13), or "". nextToVersion says that seg follows the version, its
// prerelease or another counter directly: only there does a v count
// builds (redis-stack's 7.2.0-v10), while after a variant word it names an
// architecture's revision (linux-arm-v7).
func counterWord(seg string, nextToVersion bool) string {
	w := leadingLetters(seg)
	lower := strings.ToLower(seg)
	for _, c := range upperCounterWords {
		if strings.HasPrefix(seg, c) && len(w) == len(c) {
			return counted(seg, c)
		}
	}
	for _, c := range digitCounterWords {
		if strings.HasPrefix(lower, c) {
			return counted(seg, seg[:len(c)])
		}
	}
	if counterWords[strings.ToLower(w)] || (nextToVersion && (w == "v" || w == "V")) {
		return counted(seg, w)
	}
	return ""
}

// counted returns w when a number follows it in seg.
func counted(seg, w string) string {
	if isNumber(seg[len(w):]) {
		return w
	}
	return ""
}
