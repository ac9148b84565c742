package main

import (
	"fmt"
	"io"
	"os"

	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/secret"
)

// annotate speaks to GitHub Actions when running there: the plan as Markdown
// in the step summary with what the run cost the registries and chart
// repositories, and one
// annotation per problem: an error for a dangling reference (the workload
// cannot start on a node without the image), a warning for the others. The
// runner
// reads workflow commands from stderr as well as stdout; they go to stderr
// so that stdout holds only the requested output (valid JSON for
// --output json).
func annotate(w io.Writer, env environ, p *plan.Plan, cost runCost) {
	if !env.Actions {
		return
	}
	for _, pr := range p.Problems {
		if pr.Kind == plan.KindDangling {
			fmt.Fprintf(w, "::error file=%s,line=%d,title=Dangling image reference::%s\n", pr.File, pr.Line, escapeAnnotation(secret.Scrub(pr.Message)))
			continue
		}
		fmt.Fprintf(w, "::warning file=%s,line=%d::%s\n", pr.File, pr.Line, escapeAnnotation(secret.Scrub(pr.Message)))
	}
	if path := env.StepSummary; path != "" {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return
		}
		defer f.Close()
		io.WriteString(f, secret.Scrub(markdown(p)+costMarkdown(cost)))
	}
}

// escapeAnnotation encodes what GitHub's workflow commands treat specially.
func escapeAnnotation(s string) string {
	r := []rune{}
	for _, c := range s {
		switch c {
		case '%':
			r = append(r, []rune("%25")...)
		case '\r':
			r = append(r, []rune("%0D")...)
		case '\n':
			r = append(r, []rune("%0A")...)
		default:
			r = append(r, c)
		}
	}
	return string(r)
}

// logGroup folds what follows into a collapsible group in the Actions log;
// the returned func closes it. Outside Actions it does nothing.
func logGroup(w io.Writer, env environ, name string) func() {
	if !env.Actions {
		return func() {}
	}
	fmt.Fprintf(w, "::group::%s\n", name)
	return func() { fmt.Fprintln(w, "::endgroup::") }
}
