package gitops

import (
	"fmt"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/imagebot/imagebot/internal/gate"
	"github.com/imagebot/imagebot/internal/imagefacts"
	"github.com/imagebot/imagebot/internal/imagename"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/timefmt"
)

// maxTitle is GitHub's limit on a pull request's title, in characters.
const maxTitle = 256

// title is short and says the version: "Update nginx to 1.26.1". It is
// plain text, never longer than GitHub takes.
func title(g group) string { return clip(oneLine(fullTitle(g)), maxTitle) }

func fullTitle(g group) string {
	if !g.plain() {
		return kindTitle(g)
	}
	name := shortName(g.Image)
	var tos []string
	for _, u := range g.Updates {
		if !slices.Contains(tos, u.To) {
			tos = append(tos, u.To)
		}
	}
	u := g.Updates[0]
	switch {
	case len(tos) == 1 && u.Type == "digest":
		return fmt.Sprintf("Update %s:%s digest to %s", name, u.To, imagename.ShortDigest(u.Digest))
	case len(tos) == 1 && u.Type == "pin":
		return fmt.Sprintf("Pin %s:%s to %s", name, u.From, u.To)
	}
	return fmt.Sprintf("Update %s to %s", name, strings.Join(tos, ", "))
}

// maxBody is GitHub's limit on a pull request's description (and a
// comment's), in characters: a longer one is refused with 422.
const maxBody = 65536

// bodyBudget leaves room under maxBody for people's edits around the text.
const bodyBudget = maxBody - 1024

// body renders the PR description. It depends only on the plan, never on the
// time or the run, so an unchanged plan gives an unchanged body and a rerun
// writes nothing. It always fits GitHub's limit (fit): a table too long
// for it is cut, and what is left out is summarised by directory.
//
// Whatever a registry or the tree says (tags, file names, labels) is
// quoted: in code spans (lit), or as an https URL alone (sourceURL); the
// bot's own Markdown around interpolated values is tamed. So no image
// publisher or file name can mention people, embed HTML or forge the
// marker.
func body(g group) string {
	var head strings.Builder
	if g.plain() {
		fmt.Fprintf(&head, "This pull request moves **%s** ", word(g.Image))
		if len(g.Updates) == 1 {
			u := g.Updates[0]
			fmt.Fprintf(&head, "from %s to %s (%s).\n\n", lit(u.From), lit(u.To), u.Type)
		} else {
			writeFroms(&head, g)
		}
		writeNotes(&head, g)
	} else {
		head.WriteString(kindIntro(g))
	}
	var t table
	if g.Kind == plan.KindPrepull {
		t = prepullTable(g)
	} else {
		t = changesTable(g)
	}
	var tail strings.Builder
	tail.WriteString(t.after)
	if d := g.Updates[0].Digest; d != "" && len(g.Updates) == 1 {
		fmt.Fprintf(&tail, "\nNew digest: %s\n", lit(d))
	}
	var notes []string
	for i, u := range g.Updates {
		if n := releaseNotes(u, g.info(i)); n != "" && !slices.Contains(notes, n) {
			notes = append(notes, n)
		}
	}
	for _, u := range g.Updates {
		if n := chartNotes(u); n != "" && !slices.Contains(notes, n) {
			notes = append(notes, n)
		}
		if n := gitNotes(u); n != "" && !slices.Contains(notes, n) {
			notes = append(notes, n)
		}
	}
	for _, n := range notes {
		if len(g.images()) > 1 {
			n = imagesOfNotes(g, n) + ": " + n
		}
		tail.WriteString("\n" + n + "\n")
	}
	tail.WriteString(orderNote(g))
	tail.WriteString(checks(g))
	end := "\n" + outro(g) + "\n\n" + markerOf(g).text() + "\n"
	return fit(head.String(), t, tail.String(), end)
}

// writeFroms says where a stream's PR moves its places from, by old
// version, in the order of the table below: one PR carries every place
// that moves to its version, whatever each one's old version.
func writeFroms(b *strings.Builder, g group) {
	places := 0
	for _, u := range g.Updates {
		places += len(u.Changes)
	}
	fmt.Fprintf(b, "to %s in %d places, from %d versions:\n\n", lit(g.Updates[0].To), places, len(g.Updates))
	for i, u := range g.Updates {
		if i == maxFroms {
			fmt.Fprintf(b, "- and %d more versions\n", len(g.Updates)-i)
			break
		}
		n := "1 place"
		if len(u.Changes) != 1 {
			n = fmt.Sprintf("%d places", len(u.Changes))
		}
		fmt.Fprintf(b, "- from %s (%s): %s\n", lit(u.From), u.Type, n)
	}
	b.WriteString("\n")
}

// maxFroms bounds the list of old versions: the table has them all.
const maxFroms = 50

// table is a Markdown table, row by row, so that fit can cut it.
type table struct {
	header string
	rows   []string
	// where is what each row is about, for the summary of rows cut: a
	// file, or "" for a row about an image.
	where []string
	after string // what follows the table
}

// fit joins a body's parts; when they are longer than GitHub takes, the
// table keeps its first rows and says how many more there are in which
// directories, and the text before and after it is cut to a share of
// the budget. The marker, in end, is never cut.
func fit(head string, t table, tail, end string) string {
	full := head + t.header + strings.Join(t.rows, "") + tail + end
	if runes(full) <= bodyBudget {
		return full
	}
	const summaryRoom = 4 << 10
	head, tail = cut(head, 8<<10), cut(tail, 8<<10)
	room := bodyBudget - runes(head) - runes(t.header) - runes(tail) - runes(end) - summaryRoom
	n := 0
	for n < len(t.rows) && runes(t.rows[n]) <= room {
		room -= runes(t.rows[n])
		n++
	}
	return head + t.header + strings.Join(t.rows[:n], "") + summary(t.where[n:], summaryRoom) + tail + end
}

// summary says what the rows cut from a table were about: how many
// locations in which directories, the busiest first, in at most room
// characters.
func summary(where []string, room int) string {
	if len(where) == 0 {
		return ""
	}
	count := map[string]int{}
	var dirs []string
	images := 0
	for _, w := range where {
		if w == "" {
			images++
			continue
		}
		d := path.Dir(w) + "/"
		if count[d] == 0 {
			dirs = append(dirs, d)
		}
		count[d]++
	}
	var b strings.Builder
	if images > 0 {
		fmt.Fprintf(&b, "\n…and %d more images, not listed to keep this description within GitHub's limit.\n", images)
	}
	if len(dirs) == 0 {
		return b.String()
	}
	slices.SortStableFunc(dirs, func(a, b string) int { return count[b] - count[a] })
	fmt.Fprintf(&b, "\n…and %d more locations, not listed to keep this description within GitHub's limit; the diff has them all:\n\n", len(where)-images)
	for i, d := range dirs {
		line := fmt.Sprintf("- %s: %d\n", lit(d), count[d])
		if runes(b.String())+runes(line) > room-100 {
			fmt.Fprintf(&b, "- and %d more directories\n", len(dirs)-i)
			break
		}
		b.WriteString(line)
	}
	return b.String()
}

// cut shortens Markdown to at most n characters, at a line's end.
func cut(s string, n int) string {
	if runes(s) <= n {
		return s
	}
	s = clip(s, n-80)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[:i+1]
	}
	return s + "\n(…cut to keep this description within GitHub's limit)\n"
}

// clip shortens s to at most n characters, marking the cut with "…".
func clip(s string, n int) string {
	if runes(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// runes is the length GitHub's limits count.
func runes(s string) int { return utf8.RuneCountInString(s) }

// oneLine makes s plain text of one line, as a title is: control
// characters and Unicode's line and paragraph separators (which Markdown
// renderers may break on) become spaces.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
}

// imagesOfNotes names the images whose release notes are n.
func imagesOfNotes(g group, n string) string {
	var names []string
	for i, u := range g.Updates {
		if s := lit(shortName(u.Image)); releaseNotes(u, g.info(i)) == n && !slices.Contains(names, s) {
			names = append(names, s)
		}
	}
	return strings.Join(names, ", ")
}

// changesTable lists every reference the PR changes, with the image when
// the PR moves several.
func changesTable(g group) table {
	var t table
	multi := len(g.images()) > 1
	if multi {
		t.header = "| Location | Image | Old | New | Type |\n|---|---|---|---|---|\n"
	} else {
		t.header = "| Location | Old | New | Type |\n|---|---|---|---|\n"
	}
	for _, u := range g.Updates {
		for _, c := range u.Changes {
			old := cell(c.Ref.Tag)
			if c.Ref.Tag == "" {
				old = "(no tag)"
			}
			if c.Ref.Digest != "" {
				old += "<br>" + cell(imagename.ShortDigest(c.Ref.Digest))
			}
			tag := c.Tag
			if tag == "" {
				tag = c.Ref.Tag
			}
			nw := cell(tag)
			if d := c.Digest; d != "" {
				nw += "<br>" + cell(imagename.ShortDigest(d))
			} else if c.Ref.Digest != "" {
				nw += "<br>" + cell(imagename.ShortDigest(c.Ref.Digest))
			}
			loc := cell(fmt.Sprintf("%s:%d", c.Ref.File, c.Ref.Line))
			if multi {
				t.rows = append(t.rows, fmt.Sprintf("| %s | %s | %s | %s | %s |\n", loc, cell(shortName(u.Image)), old, nw, u.Type))
			} else {
				t.rows = append(t.rows, fmt.Sprintf("| %s | %s | %s | %s |\n", loc, old, nw, u.Type))
			}
			t.where = append(t.where, c.Ref.File)
		}
	}
	var b strings.Builder
	for _, u := range g.Updates {
		if len(u.Files) == 0 {
			continue
		}
		// The first file an update edits whole is named; the others
		// follow from it (a Chart.lock beside its Chart.yaml).
		f := u.Files[0]
		note := f.Note
		if note == "" {
			note = fileEditNote(u)
		}
		fmt.Fprintf(&b, "\nAlso edits %s (%s).\n", lit(f.Path), note)
	}
	t.after = b.String()
	return t
}

// fileEditNote says why an update edits a whole file.
func fileEditNote(u plan.Update) string {
	if u.Kind == plan.KindPrepull {
		return "adds the image to the pre-pull DaemonSet"
	}
	return "removes " + word(shortName(u.Image)) + " from the pre-pull DaemonSet: the nodes keep it cached"
}

// prepullTable lists the images a pre-pull PR adds, and where each will
// roll out.
func prepullTable(g group) table {
	t := table{header: "| Image | Tag | Rolls out to |\n|---|---|---|\n"}
	for _, u := range g.Updates {
		tag := cell(u.To)
		if u.Digest != "" {
			tag += "<br>" + cell(imagename.ShortDigest(u.Digest))
		}
		var locs []string
		for _, l := range u.Locations {
			locs = append(locs, cell(fmt.Sprintf("%s:%d", l.File, l.Line)))
		}
		t.rows = append(t.rows, fmt.Sprintf("| %s | %s | %s |\n", cell(u.Image), tag, strings.Join(locs, "<br>")))
		t.where = append(t.where, "")
	}
	if len(g.Updates) > 0 && len(g.Updates[0].Files) > 0 {
		t.after = fmt.Sprintf("\nThe DaemonSet is %s; imagebot owns that file.\n", lit(g.Updates[0].Files[0].Path))
	}
	return t
}

// checks lists what the policy's gates verified of each new image. Ages
// are written as the build time and the limit it passed, never as an age
// that would change the body at every run.
func checks(g group) string {
	var b strings.Builder
	var done []string
	for _, u := range g.Updates {
		ev := u.Evidence
		if ev == nil || slices.Contains(done, u.To) {
			continue
		}
		done = append(done, u.To)
		if len(g.Updates) > 1 {
			fmt.Fprintf(&b, "\n**Checks for %s**\n\n", lit(u.To))
		} else {
			b.WriteString("\n**Checks**\n\n")
		}
		if a := ev.Age; a != nil {
			seen := ""
			if a.FirstSeen != nil {
				// Both times: created is the publisher's word, first sight imagebot's.
				seen = fmt.Sprintf(", first seen by imagebot %s", timefmt.Stamp(*a.FirstSeen))
			}
			fmt.Fprintf(&b, "- Age: built %s (%s)%s, older than `minAge` %s\n", timefmt.Stamp(a.Created), createdFrom(a.From), seen, a.Limit)
		}
		if a := ev.Settled; a != nil {
			fmt.Fprintf(&b, "- Settled: newest platform image built %s, older than `digestSettle` %s\n", timefmt.Stamp(a.Created), a.Limit)
		}
		if p := ev.Platforms; p != nil {
			fmt.Fprintf(&b, "- Platforms: %s: %s\n", codeList(p.Have), platformsVerdict(p))
		}
		if s := ev.Signature; s != nil {
			who := "`" + code(s.Signer) + "`"
			if s.Issuer != "" {
				who += " issued by `" + code(s.Issuer) + "`"
			}
			fmt.Fprintf(&b, "- Signature: %s on %s (%s)\n", who, lit(imagename.ShortDigest(ev.Digest)), signatureMethod(s.Method))
		}
	}
	return b.String()
}

func createdFrom(from string) string {
	switch from {
	case imagefacts.FromAnnotation:
		return "`org.opencontainers.image.created` annotation"
	case imagefacts.FromLabel:
		return "`org.opencontainers.image.created` label"
	}
	return "image config"
}

func platformsVerdict(p *gate.PlatformsEvidence) string {
	switch {
	case p.Unknown != "":
		return tame(p.Unknown)
	case p.Keep:
		return "every platform of the current image (" + codeList(p.Want) + ")"
	}
	return "every platform the policy lists (" + codeList(p.Want) + ")"
}

func signatureMethod(m string) string {
	if m == "referrer" {
		return "cosign, OCI referrer with a Sigstore bundle"
	}
	return "cosign, signature tag"
}

// code makes text safe inside a Markdown code span: a backtick would end
// it, a line break end the paragraph, and "<!--" could start a marker.
func code(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '`':
			return '\''
		case unicode.IsControl(r):
			return '\uFFFD'
		}
		return r
	}, s)
	return strings.ReplaceAll(s, "<!--", "<!-\u200b-")
}

// lit quotes text from a registry or the tree as a code span: GitHub
// renders it as it is, with no Markdown, HTML or @mention.
func lit(s string) string { return "`" + code(s) + "`" }

// cell is lit for a table cell, where a pipe would end the cell.
func cell(s string) string { return "`" + strings.ReplaceAll(code(s), "|", `\|`) + "`" }

// plainWord is what a name may hold to be written as it is.
var plainWord = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/:-]*$`)

// word writes a name (an image, a tag) as it is when it is made of plain
// characters only, else quoted.
func word(s string) string {
	if plainWord.MatchString(s) {
		return s
	}
	return lit(s)
}

// tame makes the bot's own Markdown around interpolated values inert: a
// zero-width space after "<" and "@" keeps HTML tags, comments (a forged
// marker) and @mentions from forming, in and out of code spans, and a line
// break cannot end the paragraph or the list item.
func tame(s string) string {
	return strings.NewReplacer("<", "<\u200b", "@", "@\u200b").Replace(oneLine(s))
}

func codeList(items []string) string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = lit(s)
	}
	return strings.Join(out, ", ")
}

// releaseNotes links the source the image's OCI labels name, when it is a
// plain https URL: the label is the image publisher's, and anything else
// in it (Markdown, HTML, a forged marker) is not written at all.
func releaseNotes(u plan.Update, info *registry.Info) string {
	if info == nil {
		return ""
	}
	src, ok := sourceURL(info.Labels["org.opencontainers.image.source"])
	if !ok {
		return ""
	}
	line := "Source: " + src
	if strings.HasPrefix(src, "https://github.com/") {
		notes := "release notes for " + word(u.To)
		line += fmt.Sprintf(" · [%s](%s/releases/tag/%s)", notes, src, url.PathEscape(u.To))
	}
	if !info.Created.IsZero() {
		line += fmt.Sprintf(" · built %s", info.Created.UTC().Format("2006-01-02"))
	}
	return line
}

// chartNotes says what a chart's repository says of the versions an
// update moves between: appVersion old and new, the chart's home and
// sources. Whatever the index says is quoted (lit) or an https URL alone
// (sourceURL), as for a registry's labels.
func chartNotes(u plan.Update) string {
	c := u.Chart
	if c == nil {
		return ""
	}
	var parts []string
	switch {
	case c.AppVersion != "" && c.FromAppVersion != "" && c.AppVersion != c.FromAppVersion:
		parts = append(parts, fmt.Sprintf("appVersion %s → %s", lit(c.FromAppVersion), lit(c.AppVersion)))
	case c.AppVersion != "":
		parts = append(parts, "appVersion "+lit(c.AppVersion))
	}
	if h, ok := sourceURL(c.Home); ok {
		parts = append(parts, "home: "+h)
	}
	var srcs []string
	for _, s := range c.Sources {
		if u, ok := sourceURL(s); ok && !slices.Contains(srcs, u) && len(srcs) < 5 {
			srcs = append(srcs, u)
		}
	}
	if len(srcs) > 0 {
		parts = append(parts, "sources: "+strings.Join(srcs, ", "))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("Chart %s %s: %s", lit(c.Name), lit(u.To), strings.Join(parts, " · "))
}

// sourceURL is an image's source label as an https URL that GitHub can
// autolink and nothing else: no credentials, no characters that Markdown
// or HTML read, without a trailing slash or ".git".
func sourceURL(s string) (string, bool) {
	s = strings.TrimSuffix(strings.TrimSuffix(s, "/"), ".git")
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || u.Opaque != "" || len(s) > 500 ||
		strings.ContainsFunc(s, func(r rune) bool {
			return r <= ' ' || r >= 0x7f || strings.ContainsRune("<>\"'`()[]{}|\\^@*!", r)
		}) {
		return "", false
	}
	return s, true
}

// orderNote says how a build without a version was chosen (a policy's
// order) and what reading build times cost in the run that wrote the
// body. Only the marker decides whether a PR is edited, so the count
// changing from run to run never edits a PR by itself.
func orderNote(g group) string {
	for _, u := range g.Updates {
		o := u.Order
		if o == nil {
			continue
		}
		how := "build time (`order: created`)"
		if o.By == "firstSeen" {
			how = "when imagebot first saw each tag (`order: firstSeen`)"
		}
		s := fmt.Sprintf("\nChosen as the newest build by %s; reading build times cost %s in this run.\n", how, nounCount(o.Requests, "manifest/config request"))
		if o.Undated > 0 {
			s += fmt.Sprintf("%s not dated yet: the next runs read them.\n", nounCount(o.Undated, "build"))
		}
		return s
	}
	return ""
}

func nounCount(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
