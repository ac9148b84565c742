package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/imagebot/imagebot/internal/plan"
)

// maxNoticeRows bounds the notices a Markdown plan lists: a step summary
// holds 1 MiB, and a repository may hold thousands of references.
const maxNoticeRows = 300

// writePlan prints the plan in format. verbose lists every reference left
// alone in the text format, which otherwise only counts them.
func writePlan(w io.Writer, p *plan.Plan, format string, verbose bool) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		// A pattern in a notice reads (?P<version>...), not \u003cversion\u003e.
		enc.SetEscapeHTML(false)
		return enc.Encode(p)
	case "markdown":
		_, err := io.WriteString(w, markdown(p))
		return err
	case "text":
		return text(w, p, verbose)
	}
	return fmt.Errorf("--output: want text, json or markdown, got %q", format)
}

func text(w io.Writer, p *plan.Plan, verbose bool) error {
	if len(p.Updates) == 0 {
		fmt.Fprintln(w, headline(p))
	} else {
		// A plan of a big repository is long: the count comes first.
		fmt.Fprintf(w, "%s\n\n", counts(p))
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "IMAGE\tFROM\tTO\tTYPE\tLOCATIONS")
		for _, u := range p.Updates {
			for i, l := range u.Locations {
				if i == 0 {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", u.Image, u.From, u.To, u.Type, l)
				} else {
					fmt.Fprintf(tw, "\t\t\t\t%s\n", l)
				}
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, u := range p.Updates {
			if u.Notice != "" {
				fmt.Fprintf(w, "note: %s %s -> %s: %s\n", u.Image, u.From, u.To, u.Notice)
			}
		}
		if verbose {
			fmt.Fprintln(w, "\npull requests will carry:")
			printCarried(w, "  ", p.Updates)
		}
	}
	printProblems(w, p.Problems, verbose)
	if n := len(p.Notices); n > 0 {
		left := fmt.Sprintf("%d %s left alone", n, plural(n, "reference", "references"))
		if !verbose {
			fmt.Fprintf(w, "\n%s (--verbose lists them)\n", left)
			return nil
		}
		fmt.Fprintf(w, "\n%s:\n", left)
		for _, nt := range p.Notices {
			fmt.Fprintf(w, "  %s:%d %s %s\n", nt.File, nt.Line, reference(nt), because(nt))
		}
	}
	return nil
}

// counts is the first line of a plan with updates: "3 updates in 5
// places, 120 references left alone, 1 problem".
func counts(p *plan.Plan) string {
	places := 0
	for _, u := range p.Updates {
		places += len(u.Locations)
	}
	n := len(p.Updates)
	out := fmt.Sprintf("%d %s in %d %s", n, plural(n, "update", "updates"), places, plural(places, "place", "places"))
	if k := len(p.Notices); k > 0 {
		out += fmt.Sprintf(", %d %s left alone", k, plural(k, "reference", "references"))
	}
	if k := len(p.Problems); k > 0 {
		out += fmt.Sprintf(", %d %s", k, plural(k, "problem", "problems"))
	}
	return out
}

// reference is image:tag as the notice names it; untagged, the image alone.
func reference(n plan.Notice) string {
	if n.Tag == "" {
		return n.Image
	}
	return n.Image + ":" + n.Tag
}

// because is "reason" or "reason: detail".
func because(n plan.Notice) string {
	if n.Detail == "" {
		return n.Reason
	}
	return n.Reason + ": " + n.Detail
}

// markdown renders the plan for GitHub: a step summary or a PR comment.
// References left alone are folded away in a <details> section.
func markdown(p *plan.Plan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### imagebot: %d %s\n\n", len(p.Updates), plural(len(p.Updates), "update", "updates"))
	if len(p.Updates) > 0 {
		b.WriteString("| Image | From | To | Type | Locations |\n|---|---|---|---|---|\n")
		for _, u := range p.Updates {
			locs := make([]string, len(u.Locations))
			for i, l := range u.Locations {
				locs[i] = "`" + l.String() + "`"
			}
			fmt.Fprintf(&b, "| `%s` | `%s` | `%s` | %s | %s |\n", u.Image, u.From, u.To, u.Type, strings.Join(locs, "<br>"))
		}
		var notes []string
		for _, u := range p.Updates {
			if u.Notice != "" {
				notes = append(notes, fmt.Sprintf("- `%s` `%s` → `%s`: %s\n", u.Image, u.From, u.To, cell(u.Notice)))
			}
		}
		if len(notes) > 0 {
			b.WriteString("\n" + strings.Join(notes, ""))
		}
	}
	if len(p.Problems) > 0 {
		fmt.Fprintf(&b, "\n**%d %s**\n\n", len(p.Problems), plural(len(p.Problems), "problem", "problems"))
		for _, pr := range p.Problems {
			fmt.Fprintf(&b, "- `%s:%d`: %s\n", pr.File, pr.Line, pr.Message)
		}
	}
	if n := len(p.Notices); n > 0 {
		if !strings.HasSuffix(b.String(), "\n\n") {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "<details><summary>%d %s left alone</summary>\n\n", n, plural(n, "reference", "references"))
		b.WriteString("| Location | Image | Tag | Reason | Detail |\n|---|---|---|---|---|\n")
		for i, nt := range p.Notices {
			if i == maxNoticeRows {
				fmt.Fprintf(&b, "\n%d more: `imagebot plan --verbose` lists them all.\n", n-maxNoticeRows)
				break
			}
			tag := ""
			if nt.Tag != "" {
				tag = "`" + nt.Tag + "`"
			}
			fmt.Fprintf(&b, "| `%s:%d` | `%s` | %s | %s | %s |\n", nt.File, nt.Line, nt.Image, tag, nt.Reason, cell(nt.Detail))
		}
		b.WriteString("\n</details>\n")
	}
	return b.String()
}

// cell makes text safe inside a Markdown table cell: a `|` in a pattern
// would end the cell, and HTML would be rendered.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;", "\n", " ").Replace(s)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// carries says what an update's pull request carries: its group, labels,
// reviewers, whether it merges itself or waits for approval, and the
// digest apply writes.
func carries(u plan.Update) string {
	var parts []string
	if u.Group != "" {
		parts = append(parts, "group "+u.Group)
	}
	if pr := u.PullRequest; pr != nil {
		if len(pr.Labels) > 0 {
			parts = append(parts, "labels "+strings.Join(pr.Labels, ", "))
		}
		if len(pr.Reviewers) > 0 {
			parts = append(parts, "reviewers "+strings.Join(pr.Reviewers, ", "))
		}
		if pr.Automerge {
			parts = append(parts, "automerge")
		}
		if pr.Approval {
			parts = append(parts, "awaits approval on the dashboard")
		}
	}
	if u.Digest != "" {
		parts = append(parts, "digest "+u.Digest)
	}
	if len(parts) == 0 {
		return "no labels, reviewers or automerge"
	}
	return strings.Join(parts, "; ")
}

// printCarried lists what each update's pull request carries, a line each.
func printCarried(w io.Writer, indent string, us []plan.Update) {
	for _, u := range us {
		fmt.Fprintf(w, "%s%s %s -> %s: %s\n", indent, u.Image, u.From, u.To, carries(u))
	}
}
