package gitops

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/imagebot/imagebot/internal/gate"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/registry"
)

// marker is the machine-readable part of a PR body: what the PR proposes.
// The next run reads it back instead of keeping state of its own.
type marker struct {
	Image   string       `json:"image"`
	Branch  string       `json:"branch"`
	Updates []markedMove `json:"updates"`
}

type markedMove struct {
	From   string `json:"from"`
	To     string `json:"to"`
	Digest string `json:"digest,omitempty"`
	// Locations ("file:line") let a rerun see that the body's table of
	// locations is stale, e.g. after main gained another reference.
	Locations []string `json:"locations,omitempty"`
}

const markerPrefix = "<!-- imagebot:v1 "

var markerRE = regexp.MustCompile(`<!-- imagebot:v1 (\{.*?\}) -->`)

func markerOf(g group) marker {
	m := marker{Image: g.Image, Branch: g.Branch}
	for _, u := range g.Updates {
		mv := markedMove{From: u.From, To: u.To, Digest: u.Digest}
		for _, l := range u.Locations {
			mv.Locations = append(mv.Locations, fmt.Sprintf("%s:%d", l.File, l.Line))
		}
		m.Updates = append(m.Updates, mv)
	}
	return m
}

// parseMarker reads the marker of a PR body; ok is false for PRs that
// imagebot did not write.
func parseMarker(body string) (marker, bool) {
	var m marker
	sub := markerRE.FindStringSubmatch(body)
	if sub == nil || json.Unmarshal([]byte(sub[1]), &m) != nil || m.Image == "" {
		return marker{}, false
	}
	return m, true
}

// sameMarker reports whether body carries the marker this run would write.
func sameMarker(body string, g group) bool {
	m, ok := parseMarker(body)
	want, _ := json.Marshal(markerOf(g))
	got, _ := json.Marshal(m)
	return ok && string(got) == string(want)
}

// proposes reports whether a PR with marker m proposed moving to u's tag
// and digest: a closed one means a human declined exactly that.
func (m marker) proposes(u plan.Update) bool {
	for _, mv := range m.Updates {
		if mv.To == u.To && mv.Digest == u.Digest {
			return true
		}
	}
	return false
}

// title is short and says the version: "Update nginx to 1.26.1".
func title(g group) string {
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
		return fmt.Sprintf("Update %s:%s digest to %s", name, u.To, shortDigest(u.Digest))
	case len(tos) == 1 && u.Type == "pin":
		return fmt.Sprintf("Pin %s:%s to %s", name, u.From, u.To)
	}
	return fmt.Sprintf("Update %s to %s", name, strings.Join(tos, ", "))
}

func shortDigest(d string) string {
	if _, hex, ok := strings.Cut(d, ":"); ok && len(hex) > 12 {
		return hex[:12]
	}
	return d
}

// body renders the PR description. It depends only on the plan, never on the
// time or the run, so an unchanged plan gives an unchanged body and a rerun
// writes nothing.
func body(g group) string {
	var b strings.Builder
	fmt.Fprintf(&b, "This pull request moves **%s** ", g.Image)
	if len(g.Updates) == 1 {
		u := g.Updates[0]
		fmt.Fprintf(&b, "from `%s` to `%s` (%s).\n\n", u.From, u.To, u.Type)
	} else {
		fmt.Fprintf(&b, "to a newer tag in %d places.\n\n", len(g.Updates))
	}
	b.WriteString("| Location | Old | New | Type |\n|---|---|---|---|\n")
	for _, u := range g.Updates {
		for _, c := range u.Changes {
			old := "`" + c.Ref.Tag + "`"
			if c.Ref.Tag == "" {
				old = "(no tag)"
			}
			if c.Ref.Digest != "" {
				old += "<br>`" + shortDigest(c.Ref.Digest) + "`"
			}
			tag := c.Tag
			if tag == "" {
				tag = c.Ref.Tag
			}
			nw := "`" + tag + "`"
			if d := c.Digest; d != "" {
				nw += "<br>`" + shortDigest(d) + "`"
			} else if c.Ref.Digest != "" {
				nw += "<br>`" + shortDigest(c.Ref.Digest) + "`"
			}
			fmt.Fprintf(&b, "| `%s:%d` | %s | %s | %s |\n", c.Ref.File, c.Ref.Line, old, nw, u.Type)
		}
	}
	if d := g.Updates[0].Digest; d != "" {
		fmt.Fprintf(&b, "\nNew digest: `%s`\n", d)
	}
	if notes := releaseNotes(g.Updates[0], g.info(0)); notes != "" {
		b.WriteString("\n" + notes + "\n")
	}
	b.WriteString(checks(g))
	b.WriteString("\nMerging is the human gate: once merged, your GitOps controller rolls it out. " +
		"Closing this pull request without merging tells imagebot not to propose this version again.\n\n")
	mk, _ := json.Marshal(markerOf(g))
	fmt.Fprintf(&b, "%s%s -->\n", markerPrefix, mk)
	return b.String()
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
			fmt.Fprintf(&b, "\n**Checks for `%s`**\n\n", u.To)
		} else {
			b.WriteString("\n**Checks**\n\n")
		}
		if a := ev.Age; a != nil {
			fmt.Fprintf(&b, "- Age: built %s (%s), older than `minAge` %s\n", stamp(a.Created), createdFrom(a.From), a.Limit)
		}
		if a := ev.Settled; a != nil {
			fmt.Fprintf(&b, "- Settled: newest platform image built %s, older than `digestSettle` %s\n", stamp(a.Created), a.Limit)
		}
		if p := ev.Platforms; p != nil {
			fmt.Fprintf(&b, "- Platforms: %s: %s\n", codeList(p.Have), platformsVerdict(p))
		}
		if s := ev.Signature; s != nil {
			who := "`" + code(s.Signer) + "`"
			if s.Issuer != "" {
				who += " issued by `" + code(s.Issuer) + "`"
			}
			fmt.Fprintf(&b, "- Signature: %s on `%s` (%s)\n", who, shortDigest(ev.Digest), signatureMethod(s.Method))
		}
	}
	return b.String()
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

func createdFrom(from string) string {
	switch from {
	case gate.FromAnnotation:
		return "`org.opencontainers.image.created` annotation"
	case gate.FromLabel:
		return "`org.opencontainers.image.created` label"
	}
	return "image config"
}

func platformsVerdict(p *gate.PlatformsEvidence) string {
	switch {
	case p.Unknown != "":
		return p.Unknown
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

// code makes text safe inside a Markdown code span.
func code(s string) string { return strings.ReplaceAll(s, "`", "'") }

func codeList(items []string) string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = "`" + code(s) + "`"
	}
	return strings.Join(out, ", ")
}

// releaseNotes links the source the image's OCI labels name.
func releaseNotes(u plan.Update, info *registry.Info) string {
	if info == nil {
		return ""
	}
	src := info.Labels["org.opencontainers.image.source"]
	if !strings.HasPrefix(src, "https://") {
		return ""
	}
	src = strings.TrimSuffix(strings.TrimSuffix(src, "/"), ".git")
	line := fmt.Sprintf("Source: %s", src)
	if strings.HasPrefix(src, "https://github.com/") {
		line += fmt.Sprintf(" · [release notes for %s](%s/releases/tag/%s)", u.To, src, u.To)
	}
	if !info.Created.IsZero() {
		line += fmt.Sprintf(" · built %s", info.Created.UTC().Format("2006-01-02"))
	}
	return line
}
