package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/imagebot/imagebot/internal/plan"
)

func writePlan(w io.Writer, p *plan.Plan, format string) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(p)
	case "markdown":
		_, err := io.WriteString(w, markdown(p))
		return err
	case "text":
		return text(w, p)
	}
	return fmt.Errorf("--output: want text, json or markdown, got %q", format)
}

func text(w io.Writer, p *plan.Plan) error {
	if len(p.Updates) == 0 {
		fmt.Fprintln(w, "no updates")
	} else {
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
	}
	if len(p.Problems) > 0 {
		fmt.Fprintf(w, "\n%d %s:\n", len(p.Problems), plural(len(p.Problems), "problem", "problems"))
		for _, pr := range p.Problems {
			fmt.Fprintf(w, "  %s:%d: %s\n", pr.File, pr.Line, pr.Message)
		}
	}
	return nil
}

// markdown renders the plan for GitHub: a step summary or a PR comment.
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
	}
	if len(p.Problems) > 0 {
		fmt.Fprintf(&b, "\n**%d %s**\n\n", len(p.Problems), plural(len(p.Problems), "problem", "problems"))
		for _, pr := range p.Problems {
			fmt.Fprintf(&b, "- `%s:%d`: %s\n", pr.File, pr.Line, pr.Message)
		}
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
