package drift

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/imagebot/imagebot/internal/imagename"
)

// maxRows bounds the findings a Markdown report lists: a step summary and
// an issue body are limited, and a cluster may run thousands of pods.
const maxRows = 200

// Headline says in one line what drifted.
func (r *Report) Headline() string {
	if len(r.Drift) == 0 && len(r.Problems) > 0 {
		return fmt.Sprintf("no drift found, but %d %s could not be read", len(r.Problems), plural(len(r.Problems), "cluster", "clusters"))
	}
	if len(r.Drift) == 0 {
		return "no drift: every running container matches the repository and the registry"
	}
	var parts []string
	for _, k := range Kinds {
		if n := r.Count()[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
		}
	}
	return "drift: " + strings.Join(parts, ", ")
}

// WriteText prints the report as a table, then its notices and problems.
func (r *Report) WriteText(w io.Writer) error {
	fmt.Fprintln(w, r.Headline())
	if len(r.Drift) > 0 {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "\nKIND\tLOCATION\tCLUSTER\tWORKLOAD\tRUNNING\tEXPECTED\tPODS")
		for _, f := range r.Drift {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", f.Kind, f.location(), f.Cluster, f.Workload,
				f.running(), short(f.Expected), f.pods(3))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	for _, f := range r.Drift {
		if f.Changed != nil {
			fmt.Fprintf(w, "%s:%d was last changed by %s at %s\n", f.File, f.Line, shortHash(f.Changed.Hash), f.Changed.Time.UTC().Format(time.RFC3339))
		}
	}
	for _, n := range r.Problems {
		fmt.Fprintf(w, "problem: cluster %s: %s\n", n.Cluster, n.Message)
	}
	for _, n := range r.Notices {
		fmt.Fprintf(w, "notice: %s\n", n.text())
	}
	return nil
}

// Markdown is the report for a step summary, a pull request or the
// dashboard.
func (r *Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**\n", r.Headline())
	if len(r.Drift) > 0 {
		b.WriteString("\n| kind | location | cluster | workload | running | expected | pods |\n|---|---|---|---|---|---|---|\n")
		for i, f := range r.Drift {
			if i == maxRows {
				fmt.Fprintf(&b, "\n…and %d more (`imagebot drift --output json` lists them all)\n", len(r.Drift)-maxRows)
				break
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", f.Kind, cell(f.location()), cell(f.Cluster),
				cell(f.Workload.String()), cell(f.running()), cell(short(f.Expected)), cell(f.pods(5)))
		}
	}
	if len(r.Problems) > 0 {
		b.WriteString("\nProblems:\n")
		for _, n := range r.Problems {
			fmt.Fprintf(&b, "- cluster %s: %s\n", cell(n.Cluster), cell(n.Message))
		}
	}
	if len(r.Notices) > 0 {
		b.WriteString("\n<details><summary>Notices</summary>\n\n")
		for i, n := range r.Notices {
			if i == maxRows {
				fmt.Fprintf(&b, "- …and %d more\n", len(r.Notices)-maxRows)
				break
			}
			fmt.Fprintf(&b, "- %s\n", cell(n.text()))
		}
		b.WriteString("\n</details>\n")
	}
	return b.String()
}

func (f Finding) location() string {
	if f.File == "" {
		return f.Image + " (in no file)"
	}
	return fmt.Sprintf("%s:%d", f.File, f.Line)
}

func (f Finding) running() string {
	s := make([]string, len(f.Running))
	for i, d := range f.Running {
		s[i] = short(d)
	}
	if len(s) == 0 {
		return "-"
	}
	return strings.Join(s, ",")
}

// pods names at most n pods, with the digest each runs when they differ.
func (f Finding) pods(n int) string {
	var s []string
	for i, p := range f.Pods {
		if i == n {
			s = append(s, fmt.Sprintf("+%d", len(f.Pods)-n))
			break
		}
		if len(f.Running) > 1 && p.Running != "" {
			s = append(s, p.Name+"="+imagename.ShortDigest(p.Running))
		} else {
			s = append(s, p.Name)
		}
	}
	if len(s) == 0 {
		return "-"
	}
	return strings.Join(s, " ")
}

func (n Notice) text() string {
	where := "cluster " + n.Cluster
	if n.File != "" {
		where = fmt.Sprintf("%s:%d (cluster %s)", n.File, n.Line, n.Cluster)
	}
	return where + ": " + n.Message
}

// short prints a digest as imagebot does; anything else as it is.
func short(s string) string {
	if s == "" {
		return "-"
	}
	if strings.HasPrefix(s, "sha256:") {
		return imagename.ShortDigest(s)
	}
	return s
}

// cell escapes a table cell's pipes and line breaks.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(s)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
