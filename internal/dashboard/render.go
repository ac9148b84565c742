package dashboard

import (
	"cmp"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// View is what a dashboard shows. Texts are Markdown that the caller has
// made inert (no HTML, no mentions). Render still flattens every string
// it is given (flat): whatever a file name, a registry or a title holds
// stays on its own list item's line and opens no comment, so no text can
// add a checkbox, a heading or a second marker.
type View struct {
	Open     []Entry // open pull requests
	Waiting  []Entry // updates waiting for a slot (ID: "open now")
	Approval []Entry // updates awaiting approval (ID: "open now")
	Held     []Held  // candidates a gate holds back
	Declined []Entry // versions declined by closing their PR (ID: "propose again")
	Notices  []Note
	Problems []Note
	Drift    []Note // what the clusters run that git or the registry does not say
	// Limits says what the limits are ("at most 5 open, 2 a run"), for
	// the waiting section's heading; "" when none are set.
	Limits string
	State  State
	// MaxBody is the host's limit on an issue body, in bytes; 0 is
	// GitHub's (MaxBody). Render's body never exceeds it.
	MaxBody int
}

// Entry is one line: Text, and the hidden ID of its checkbox where it has one.
type Entry struct {
	ID   string
	Text string
}

// Held is a candidate a gate holds back.
type Held struct {
	Text   string    // "ghcr.io/acme/web 1.28.0: 5h old, minAge 3d"
	Seen   time.Time // first seen by imagebot; zero: unknown
	Passes time.Time // when it passes; zero: not by time alone
}

// Note is a notice or problem, linked to its file and line.
type Note struct {
	Where string // "apps/web.yaml:14"
	URL   string // the line on the default branch; "" for none
	Text  string
}

// MaxBody is GitHub's limit on an issue body: 65,536 characters. Render
// counts bytes, which are never fewer than characters (or UTF-16 units),
// so a body within it in bytes is within it however the host counts.
const MaxBody = 65536

// Render writes the body of the dashboard: sections with something in
// them, then the marker on the last line. Long sections are cut short
// (saying how many entries were left out) until the body fits v.MaxBody;
// at worst every section is only its count. That always fits a host's
// limit of at least MaxBody: the marker is at most MaxMarker bytes, and
// each section's heading, intro, one entry (clipped) and count line are
// a few kilobytes in all.
func Render(v View) string {
	limit := cmp.Or(v.MaxBody, MaxBody)
	for n := 200; ; n /= 2 {
		b := render(v, n)
		if len(b) <= limit || n == 0 {
			return b
		}
	}
}

func render(v View, limit int) string {
	var b strings.Builder
	b.WriteString("This issue lists what imagebot proposes, waits for and was told. Tick a box and the next run acts on it; " +
		"everything else here is rewritten by each run.\n\n")
	entries(&b, "Open pull requests", "", v.Open, "", limit)
	heading := "Waiting for a slot"
	if v.Limits != "" {
		heading += " (" + inline(v.Limits) + ")"
	}
	entries(&b, heading, "Opened as slots free up, in this order. Tick one to open it on the next run anyway.", v.Waiting, "open", limit)
	entries(&b, "Awaiting approval", "Tick one to open its pull request on the next run.", v.Approval, "open", limit)
	held(&b, v.Held, limit)
	entries(&b, "Declined", "Closed without merging: imagebot does not propose these versions again. Tick one to propose it again.", v.Declined, "again", limit)
	notes(&b, "Drift", v.Drift, limit)
	notes(&b, "Notices", v.Notices, limit)
	notes(&b, "Problems", v.Problems, limit)
	if len(v.Open)+len(v.Waiting)+len(v.Approval)+len(v.Held)+len(v.Declined)+len(v.Notices)+len(v.Problems)+len(v.Drift) == 0 {
		b.WriteString("Nothing to do: every image is up to date.\n\n")
	}
	b.WriteString(Marker(v.State))
	b.WriteString("\n")
	return b.String()
}

func entries(b *strings.Builder, heading, intro string, es []Entry, control string, limit int) {
	if len(es) == 0 {
		return
	}
	fmt.Fprintf(b, "## %s\n\n", heading)
	if intro != "" {
		b.WriteString(intro + "\n\n")
	}
	for i, e := range es {
		if i == limit {
			more(b, len(es), i)
			break
		}
		if control != "" && controlID.MatchString(e.ID) {
			fmt.Fprintf(b, "- [ ] <!-- %s:%s --> %s\n", control, e.ID, inline(e.Text))
		} else {
			fmt.Fprintf(b, "- %s\n", inline(e.Text))
		}
	}
	b.WriteString("\n")
}

func held(b *strings.Builder, hs []Held, limit int) {
	if len(hs) == 0 {
		return
	}
	b.WriteString("## Held back by a gate\n\n")
	for i, h := range hs {
		if i == limit {
			more(b, len(hs), i)
			break
		}
		line := inline(h.Text)
		if !h.Seen.IsZero() {
			line += "; first seen " + stamp(h.Seen)
		}
		if !h.Passes.IsZero() {
			line += "; passes " + stamp(h.Passes)
		}
		fmt.Fprintf(b, "- %s\n", line)
	}
	b.WriteString("\n")
}

func notes(b *strings.Builder, heading string, ns []Note, limit int) {
	if len(ns) == 0 {
		return
	}
	fmt.Fprintf(b, "## %s\n\n", heading)
	for i, n := range ns {
		if i == limit {
			more(b, len(ns), i)
			break
		}
		where := "`" + strings.ReplaceAll(clip(flat(n.Where), 300), "`", "'") + "`"
		if len(n.URL) <= 2048 && linkable.MatchString(n.URL) {
			where = "[" + where + "](" + n.URL + ")"
		}
		fmt.Fprintf(b, "- %s: %s\n", where, inline(n.Text))
	}
	b.WriteString("\n")
}

// stamp writes a time to the minute, in UTC.
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

// more ends a section cut short: how many entries it left out.
func more(b *strings.Builder, total, shown int) {
	if shown == 0 {
		fmt.Fprintf(b, "- %d entries, left out to keep this issue within the host's size limit\n", total)
		return
	}
	fmt.Fprintf(b, "- … and %d more\n", total-shown)
}

// controlID is an ID Render gives a checkbox: what Parse reads back, and
// nothing that could end the comment it sits in. An entry with another
// ID gets no box.
var controlID = regexp.MustCompile(`^[A-Za-z0-9._/@+:-]{1,300}$`)

// linkable is a URL Render links a note to: http(s), and nothing that
// could end the link, the line or the list item.
var linkable = regexp.MustCompile(`^https?://[^\s()<>\[\]` + "`" + `]+$`)

// inline keeps a text on its list item's line, clipped.
func inline(s string) string { return clip(flat(s), 500) }

// flat is s on one line, with no HTML comment opened or closed in it:
// every control character (CR, LF, NEL, ...) and Unicode line or
// paragraph separator is a space, and a zero-width space breaks up
// "<!--" and "-->". Whatever a file name, a tag or a title holds, it
// then cannot start a line of the body (a checkbox, a heading, a
// marker) or hide or end a comment.
func flat(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\ufffd")
	}
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.In(r, unicode.Zl, unicode.Zp) {
			return ' '
		}
		return r
	}, s)
	// Closers first: breaking "<!--" in "<!-->" leaves a "-->".
	s = strings.ReplaceAll(s, "-->", "--\u200b>")
	return strings.ReplaceAll(s, "<!--", "<\u200b!--")
}

// clip cuts s to n characters, saying so with an ellipsis.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
