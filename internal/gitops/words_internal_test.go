package gitops

import (
	"strings"
	"testing"

	"github.com/imagebot/imagebot/internal/plan"
)

// TestNoticeWithoutImage: a notice that names no image (a placeholder, an
// invalid value) or no tag renders without empty code spans (once an
// empty image and tag rendered as two of them around a colon),
// in the onboarding body as on the dashboard.
func TestNoticeWithoutImage(t *testing.T) {
	p := &plan.Plan{Notices: []plan.Notice{
		{File: "a.yaml", Line: 3, Reason: plan.ReasonVariable, Detail: `"${IMAGE}": a placeholder filled in by another tool`},
		{File: "b.yaml", Line: 4, Image: "docker.io/library/nginx", Reason: plan.ReasonNoTag, Detail: "Kubernetes pulls latest"},
	}}
	body := onboardBody(&Onboarding{Path: ".imagebot.yaml"}, p, "imagebot/")
	for _, want := range []string{"- `a.yaml:3`: variable: ", "- `b.yaml:4`: nginx no-tag: "} {
		if !strings.Contains(body, want) {
			t.Errorf("onboarding body lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "``") {
		t.Errorf("an empty code span in the onboarding body:\n%s", body)
	}
	for _, n := range p.Notices {
		if strings.Contains(noticeRef(n), "``") {
			t.Errorf("noticeRef(%+v) = %q", n, noticeRef(n))
		}
	}
}
