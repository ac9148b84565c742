package policy

import (
	"strings"
)

// tag is a registry tag read the way the stream rule reads it: an optional
// prefix, a version, then suffix tokens that are variants, build counters,
// opaque ids or a prerelease.
//
//	alpine3.19-v16.11.0      prefix "alpine3.19-v", version 16.11.0
//	14.2.0-debian-12-r3      version 14.2.0, variant "-debian-12", counter r3
//	21.0.2.1_1-jdk-jammy     version 21.0.2.1, counter _1, variant "-jdk-jammy"
//	v2.4.0-12-g3a4b5c6       version 2.4.0, counter 12, id g3a4b5c6
//	3.12.0rc2-bookworm       version 3.12.0, prerelease rc2, variant "-bookworm"
//	3.10-main-412            version 3.10, variant "-main", counter 412
//	2.4-php-202301051200     version 2.4, variant "-php", counter 202301051200
//
// A tag without a version either floats (latest, alpine3.20, jdk21) or is
// an opaque id that cannot be ordered (sha-3f9a2c1, 1234567).
type tag struct {
	raw     string
	prefix  string   // text before the version, as written: "v", "main-", "alpine3.19-v"
	version []string // the version's numbers as written; nil when there is none
	verText string   // the version as written: "3.12.0", "8u402", "2024-03-05T04-48-44Z"
	pre     prerelease
	counter []string // the build counter's numbers, in order
	// skel is everything after the version except prerelease and numbers:
	// variant tokens as written, counters as their words with # for the
	// numbers, ids as @. Two tags of one stream have the same skel.
	skel    string
	variant string // the variant tokens alone, with their separators: "-debian-12"
	form    string // the counter and id marks alone: "-r#", "_#", "-#-@"
	// formEnd[i] is the length of the form up to the counter word that
	// holds counter[i]: 2.6.3-rev1 is 2.6.3-rev1-b1.2 cut after its first.
	formEnd []int
	winOS   string // "10.0.17763" for a Windows OS build: another build is another OS
	id      bool   // holds a commit id
	dated   bool   // the version is a date: 20240612, 2024-03-05T04-48-44Z
	digits  bool   // holds a digit at all

	// Keys computed once, since a listing's tags are compared many times.
	streamKey, familyKey, floatKey string
}

// versioned reports whether t has a version to compare.
func (t *tag) versioned() bool { return t.version != nil }

// floats reports whether t names no version by itself: no digits (latest),
// or digits only in variant names (alpine3.20, jdk21, ltsc2022). An opaque
// id (sha-3f9a2c1) does not float: it is immutable, only not comparable.
func (t *tag) floats() bool { return t.version == nil && !t.id }

// stream is what a candidate must share with the current tag: prefix,
// variants, the form of counter and id, and the Windows OS build.
func (t *tag) stream() string { return t.streamKey }

// family is the stream without the variants: tags of one family differ
// only in their variant (for the "only as alpine3.19" notice).
func (t *tag) family() string { return t.familyKey }

// precision is how many numbers the version states, counting at most three.
func (t *tag) precision() int { return min(len(t.version), 3) }

// preciseFor reports whether t states its version precisely enough to
// replace cur: at least as many numbers (up to three), so that 1.25.3 never
// moves to 1.26 (a floating alias or another scheme) nor to 1234567, while
// 11.0.20 moves to 11.0.20.1 and 1.22rc1 to 1.22.0. A stream with a build
// counter is exempt: an alias never carries a counter, and UBI went from
// 9.0.0-1468 to 9.3-1361.
func (t *tag) preciseFor(cur *tag) bool {
	return t.precision() >= cur.precision() || strings.Contains(cur.form, "#")
}

// parseTag reads s. windows says that the listing holds Windows images, so
// a bare 1809 or 2004 names a Windows release (a variant), not a version.
func parseTag(s string, windows bool) *tag {
	t := &tag{raw: s, digits: hasDigit(s)}
	segs := segments(s)
	if i := t.findVersion(segs, windows); i >= 0 {
		t.readSuffix(segs[i:], windows)
	}
	t.dated = t.version != nil && (dateTime(t.verText) == len(t.verText) || (len(t.version) == 1 && dateLike(t.version[0])))
	if len(t.version) == 4 && t.version[0] == "10" && t.version[1] == "0" && len(t.version[2]) >= 5 {
		t.winOS = "10.0." + t.version[2]
	}
	t.streamKey = t.prefix + "\x00" + t.skel + "\x00" + t.winOS
	t.familyKey = t.prefix + "\x00" + t.form + "\x00" + t.winOS
	t.floatKey = t.prefix + "\x00" + t.variant + "\x00" + t.pre.word + "." + strings.Join(t.pre.num, ".")
	return t
}

// findVersion walks the segments before the version, adding them to the
// prefix, and returns the index of the first segment after the version (its
// glued tail, if any, is read too), or -1 when there is no version.
func (t *tag) findVersion(segs []segment, windows bool) int {
	var prefix strings.Builder
	buildWord := false // the previous word counts builds: build-1234567 is a version
	for i, sg := range segs {
		txt := sg.text
		prefix.WriteString(sg.sep)
		prev := ""
		if i > 0 {
			prev = segs[i-1].text
		}
		switch {
		case txt == "":
		case isWindowsRelease(txt, windows) || (sg.sep == "-" && numberedOS[strings.ToLower(prev)] && isNumber(txt)):
			// 1809-amd64, debian-12: a variant, not a version.
		case isHash(txt) || (isNumber(txt) && !buildWord && looksLikeID(txt)):
			t.id = true
			prefix.WriteString("@")
			buildWord = false
			continue
		case dateTime(txt) == len(txt):
			t.prefix = prefix.String()
			t.verText = txt
			t.version = digitRuns(txt)
			return i + 1
		case isDigit(txt[0]):
			t.prefix = prefix.String()
			return t.readVersion(segs, i, txt)
		default:
			word := leadingLetters(txt)
			rest := txt[len(word):]
			if rest != "" && isDigit(rest[0]) && versionMarkers[strings.ToLower(word)] {
				prefix.WriteString(word)
				t.prefix = prefix.String()
				return t.readVersion(segs, i, rest)
			}
			buildWord = rest == "" && buildWords[strings.ToLower(word)]
			prefix.WriteString(txt)
			continue
		}
		buildWord = false
		prefix.WriteString(txt)
	}
	return -1
}

// readVersion reads the version at the start of txt (the text of segs[i]
// after any marker such as `v`), and the tail glued to it: Java 8's update
// (8u402), a prerelease (3.12.0rc2, 17beta1, 1.22rc1) or a variant.
func (t *tag) readVersion(segs []segment, i int, txt string) int {
	n := numberLen(txt)
	t.version = strings.Split(txt[:n], ".")
	tail := txt[n:]
	if len(tail) > 1 && tail[0] == 'u' && isDigit(tail[1]) {
		m := numberLen(tail[1:])
		t.version = append(t.version, strings.Split(tail[1:1+m], ".")...)
		tail = tail[1+m:]
	}
	t.verText = txt[:len(txt)-len(tail)]
	if tail == "" {
		return i + 1
	}
	if p, ok := gluedPrerelease(tail); ok {
		t.pre = p
		if p.num == nil && i+1 < len(segs) && segs[i+1].sep == "." && isNumber(segs[i+1].text) {
			t.pre.num = strings.Split(segs[i+1].text, ".")
			return i + 2
		}
		return i + 1
	}
	t.addVariant("", tail)
	return i + 1
}

// readSuffix classifies the segments after the version.
func (t *tag) readSuffix(segs []segment, windows bool) {
	last := kindVersion
	if t.pre.word != "" {
		last = kindPre
	}
	prevWord := "" // the variant word just before, without digits
	for i, sg := range segs {
		txt := sg.text
		lower := strings.ToLower(txt)
		cw := counterWord(txt, last < kindID)
		switch {
		case txt == "":
			t.addVariant(sg.sep, "")
			last = kindVariant
		case isHash(txt) || (isNumber(txt) && looksLikeID(txt) && prevWord == ""):
			// After a word, a long number counts builds (main-1234567):
			// only hex that looks like a hash, or a number standing
			// alone, is a commit id.
			t.id = true
			t.skel += sg.sep + "@"
			t.form += sg.sep + "@"
			last = kindID
		case isNumber(txt) || dateTime(txt) == len(txt):
			switch {
			case last == kindPre && t.pre.num == nil && sg.sep != "_":
				t.pre.num = digitRuns(txt) // rc.1, ea-30, beta.3
			case last == kindVariant && prevWord != "" && counterWords[prevWord]:
				t.wordToCounter(prevWord, sg.sep, txt) // build-5: the word counts builds
				last = kindCounter
			case last == kindVariant && prevWord != "" && sg.sep != "." && !isWindowsRelease(txt, windows) &&
				(!numberedWords[prevWord] || dateLike(strings.ReplaceAll(txt, ".", ""))):
				// 3.10-main-412, 2.4-php-202301051200: a number after a word
				// counts builds, and the word stays a variant; debian-12 and
				// temurin-21 name a release of what the word names.
				t.addCounter(sg.sep, "", digitRuns(txt))
				last = kindCounter
			case (last == kindVariant && prevWord != "") || strings.Contains(sg.sep, ".") || isWindowsRelease(txt, windows):
				// debian-12, nanoserver-1809: the number belongs to the variant.
				t.addVariant(sg.sep, txt)
				last = kindVariant
			default:
				t.addCounter(sg.sep, "", digitRuns(txt)) // 9.3-1361.1699548029, 21.0.1_12, v2.4.0-12-g...
				last = kindCounter
			}
		case last <= kindPre && t.pre.word == "" && t.counter == nil && isPrerelease(lower):
			t.pre, _ = separatePrerelease(lower)
			last = kindPre
		case last == kindVersion && (lower == "a" || lower == "b") && i+1 < len(segs) && segs[i+1].sep == "." && isNumber(segs[i+1].text):
			// AdGuard Home's 0.108.0-b.1, semver's spelling of 3.12.0b1:
			// a letter alone, then a dot, is a prerelease, while SUSE's
			// b5.1 counts builds.
			t.pre = prerelease{word: lower}
			last = kindPre
		case cw != "":
			t.addCounter(sg.sep, cw, digitRuns(txt[len(cw):])) // r7, rev1, b5.1, p1, k3s2, v10
			last = kindCounter
		default:
			t.addVariant(sg.sep, txt)
			last = kindVariant
		}
		prevWord = ""
		if last == kindVariant && (leadingLetters(lower) == lower || counterWords[lower]) {
			prevWord = lower // k0s, with a digit, may count builds too: k0s.1
		}
	}
}

// Kinds of suffix token, in the order they usually come.
const (
	kindVersion = iota
	kindPre
	kindCounter
	kindID
	kindVariant
)

func (t *tag) addVariant(sep, text string) {
	t.skel += sep + text
	t.variant += sep + text
}

func (t *tag) addCounter(sep, word string, nums []string) {
	t.skel += sep + word + "#"
	t.form += sep + word + "#"
	t.counter = append(t.counter, nums...)
	for range nums {
		t.formEnd = append(t.formEnd, len(t.form))
	}
}

// wordToCounter turns the variant word just read (build in build-5) into
// the counter's word, now that its number follows.
func (t *tag) wordToCounter(word, sep, num string) {
	n := len(word)
	orig := t.variant[len(t.variant)-n:]
	cut := t.variant[:len(t.variant)-n]
	wsep := cut[len(strings.TrimRight(cut, "-_.")):]
	t.variant = cut[:len(cut)-len(wsep)]
	t.skel = t.skel[:len(t.skel)-n-len(wsep)]
	t.addCounter(wsep, orig+sep, digitRuns(num))
}
