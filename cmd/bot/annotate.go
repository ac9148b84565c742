package main

import (
	"fmt"
	"io"
	"os"

	"github.com/imagebot/imagebot/internal/plan"
)

// annotate speaks to GitHub Actions when running there: the plan as Markdown
// in the step summary, and one warning annotation per problem. The runner
// reads workflow commands from stderr as well as stdout; they go to stderr
// so that stdout holds only the requested output (valid JSON for
// --output json).
func annotate(w io.Writer, p *plan.Plan) {
	if os.Getenv("GITHUB_ACTIONS") != "true" {
		return
	}
	for _, pr := range p.Problems {
		fmt.Fprintf(w, "::warning file=%s,line=%d::%s\n", pr.File, pr.Line, escapeAnnotation(pr.Message))
	}
	if path := os.Getenv("GITHUB_STEP_SUMMARY"); path != "" {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return
		}
		defer f.Close()
		io.WriteString(f, markdown(p))
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
func logGroup(w io.Writer, name string) func() {
	if os.Getenv("GITHUB_ACTIONS") != "true" {
		return func() {}
	}
	fmt.Fprintf(w, "::group::%s\n", name)
	return func() { fmt.Fprintln(w, "::endgroup::") }
}
