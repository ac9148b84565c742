package gitops

import (
	"fmt"
	"slices"
	"strings"

	"github.com/imagebot/imagebot/internal/gate"
	"github.com/imagebot/imagebot/internal/imagefacts"
	"github.com/imagebot/imagebot/internal/imagename"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/timefmt"
)

// title is short and says the version: "Update nginx to 1.26.1".
func title(g group) string {
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

// body renders the PR description. It depends only on the plan, never on the
// time or the run, so an unchanged plan gives an unchanged body and a rerun
// writes nothing.
func body(g group) string {
	var b strings.Builder
	if g.plain() {
		fmt.Fprintf(&b, "This pull request moves **%s** ", g.Image)
		if len(g.Updates) == 1 {
			u := g.Updates[0]
			fmt.Fprintf(&b, "from `%s` to `%s` (%s).\n\n", u.From, u.To, u.Type)
		} else {
			fmt.Fprintf(&b, "to a newer tag in %d places.\n\n", len(g.Updates))
		}
		writeNotes(&b, g)
	} else {
		b.WriteString(kindIntro(g))
	}
	if g.Kind == plan.KindPrepull {
		prepullTable(&b, g)
	} else {
		changesTable(&b, g)
	}
	if d := g.Updates[0].Digest; d != "" && len(g.Updates) == 1 {
		fmt.Fprintf(&b, "\nNew digest: `%s`\n", d)
	}
	var notes []string
	for i, u := range g.Updates {
		if n := releaseNotes(u, g.info(i)); n != "" && !slices.Contains(notes, n) {
			notes = append(notes, n)
		}
	}
	for _, n := range notes {
		if len(g.images()) > 1 {
			n = imagesOfNotes(g, n) + ": " + n
		}
		b.WriteString("\n" + n + "\n")
	}
	b.WriteString(checks(g))
	b.WriteString("\n" + outro(g) + "\n\n")
	b.WriteString(markerOf(g).text() + "\n")
	return b.String()
}

// imagesOfNotes names the images whose release notes are n.
func imagesOfNotes(g group, n string) string {
	var names []string
	for i, u := range g.Updates {
		if s := "`" + shortName(u.Image) + "`"; releaseNotes(u, g.info(i)) == n && !slices.Contains(names, s) {
			names = append(names, s)
		}
	}
	return strings.Join(names, ", ")
}

// changesTable lists every reference the PR changes, with the image when
// the PR moves several.
func changesTable(b *strings.Builder, g group) {
	multi := len(g.images()) > 1
	if multi {
		b.WriteString("| Location | Image | Old | New | Type |\n|---|---|---|---|---|\n")
	} else {
		b.WriteString("| Location | Old | New | Type |\n|---|---|---|---|\n")
	}
	for _, u := range g.Updates {
		for _, c := range u.Changes {
			old := "`" + c.Ref.Tag + "`"
			if c.Ref.Tag == "" {
				old = "(no tag)"
			}
			if c.Ref.Digest != "" {
				old += "<br>`" + imagename.ShortDigest(c.Ref.Digest) + "`"
			}
			tag := c.Tag
			if tag == "" {
				tag = c.Ref.Tag
			}
			nw := "`" + tag + "`"
			if d := c.Digest; d != "" {
				nw += "<br>`" + imagename.ShortDigest(d) + "`"
			} else if c.Ref.Digest != "" {
				nw += "<br>`" + imagename.ShortDigest(c.Ref.Digest) + "`"
			}
			if multi {
				fmt.Fprintf(b, "| `%s:%d` | `%s` | %s | %s | %s |\n", c.Ref.File, c.Ref.Line, shortName(u.Image), old, nw, u.Type)
			} else {
				fmt.Fprintf(b, "| `%s:%d` | %s | %s | %s |\n", c.Ref.File, c.Ref.Line, old, nw, u.Type)
			}
		}
	}
	for _, u := range g.Updates {
		for _, f := range u.Files {
			fmt.Fprintf(b, "\nAlso edits `%s` (%s).\n", f.Path, fileEditNote(u))
			break
		}
	}
}

// fileEditNote says why an update edits a whole file.
func fileEditNote(u plan.Update) string {
	if u.Kind == plan.KindPrepull {
		return "adds the image to the pre-pull DaemonSet"
	}
	return "removes " + shortName(u.Image) + " from the pre-pull DaemonSet: the nodes keep it cached"
}

// prepullTable lists the images a pre-pull PR adds, and where each will
// roll out.
func prepullTable(b *strings.Builder, g group) {
	b.WriteString("| Image | Tag | Rolls out to |\n|---|---|---|\n")
	for _, u := range g.Updates {
		tag := "`" + u.To + "`"
		if u.Digest != "" {
			tag += "<br>`" + imagename.ShortDigest(u.Digest) + "`"
		}
		var locs []string
		for _, l := range u.Locations {
			locs = append(locs, fmt.Sprintf("`%s:%d`", l.File, l.Line))
		}
		fmt.Fprintf(b, "| `%s` | %s | %s |\n", u.Image, tag, strings.Join(locs, "<br>"))
	}
	if len(g.Updates) > 0 && len(g.Updates[0].Files) > 0 {
		fmt.Fprintf(b, "\nThe DaemonSet is `%s`; imagebot owns that file.\n", g.Updates[0].Files[0].Path)
	}
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
			fmt.Fprintf(&b, "- Age: built %s (%s), older than `minAge` %s\n", timefmt.Stamp(a.Created), createdFrom(a.From), a.Limit)
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
			fmt.Fprintf(&b, "- Signature: %s on `%s` (%s)\n", who, imagename.ShortDigest(ev.Digest), signatureMethod(s.Method))
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
