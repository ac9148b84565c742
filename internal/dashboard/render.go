package dashboard

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// View is what a dashboard shows. Texts are Markdown that the caller has
// made inert (no HTML, no mentions); Render still keeps each on one line.
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

// MaxBody is GitHub's limit on an issue body, in characters.
const MaxBody = 65536

// Render writes the body of the dashboard: sections with something in
// them, then the marker. Long sections are cut short (saying how many
// entries were left out) until the body fits GitHub's limit.
func Render(v View) string {
	for limit := 200; ; limit /= 2 {
		b := render(v, limit)
		if utf8.RuneCountInString(b) <= MaxBody || limit <= 1 {
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
		heading += " (" + v.Limits + ")"
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
			fmt.Fprintf(b, "- … and %d more\n", len(es)-i)
			break
		}
		if control != "" && e.ID != "" {
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
			fmt.Fprintf(b, "- … and %d more\n", len(hs)-i)
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
			fmt.Fprintf(b, "- … and %d more\n", len(ns)-i)
			break
		}
		where := "`" + strings.ReplaceAll(n.Where, "`", "'") + "`"
		if n.URL != "" {
			where = "[" + where + "](" + n.URL + ")"
		}
		fmt.Fprintf(b, "- %s: %s\n", where, inline(n.Text))
	}
	b.WriteString("\n")
}

// stamp writes a time to the minute, in UTC.
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

// inline keeps a text on its list item's line, clipped, with no comment
// opener that could pass for a control or the marker.
func inline(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	s = strings.ReplaceAll(s, "<!--", "<\u200b!--")
	if r := []rune(s); len(r) > 500 {
		s = string(r[:499]) + "…"
	}
	return s
}
