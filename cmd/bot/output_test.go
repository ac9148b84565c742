package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/imagebot/imagebot/internal/plan"
)

// TestMarkdownNotices: the notices of a large repository stay within a
// step summary's size, and a detail cannot break the table.
func TestMarkdownNotices(t *testing.T) {
	p := &plan.Plan{}
	for i := range maxNoticeRows + 20 {
		p.Notices = append(p.Notices, plan.Notice{File: fmt.Sprintf("f%04d.yaml", i), Line: 1, Image: "docker.io/library/nginx",
			Tag: "x", Reason: plan.ReasonPattern, Detail: `tag "x" does not match pattern "^(?P<version>a|b)$"`})
	}
	md := markdown(p)
	if got := strings.Count(md, "\n| `f"); got != maxNoticeRows {
		t.Errorf("%d notice rows, want %d", got, maxNoticeRows)
	}
	if !strings.Contains(md, "20 more: `imagebot plan --verbose` lists them all.") {
		t.Errorf("no line for the notices left out:\n%s", md[len(md)-300:])
	}
	if !strings.Contains(md, `(?P&lt;version&gt;a\|b)`) || strings.Count(md, "<details>") != 1 || !strings.HasSuffix(md, "</details>\n") {
		t.Errorf("details not escaped or not folded:\n%s", md[:600])
	}
	var text strings.Builder
	if err := writePlan(&text, p, "text", true); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(text.String(), "\n  f"); got != maxNoticeRows+20 {
		t.Errorf("--verbose lists %d notices, want all %d", got, maxNoticeRows+20)
	}
}
