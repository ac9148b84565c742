package gitops

import (
	"strings"
	"testing"

	"github.com/imagebot/imagebot/internal/plan"
)

// TestChartBody: a chart update's PR says what the chart's index says:
// appVersion old and new, home and sources as https links only, every
// value from the index quoted.
func TestChartBody(t *testing.T) {
	u := plan.Update{
		Image: "https://charts.example.com/web", From: "1.2.3", To: "1.3.0", Type: "minor", Kind: plan.KindChart,
		Chart: &plan.Chart{Repository: "https://charts.example.com", Name: "web", FromAppVersion: "1.25.0", AppVersion: "1.26.0@here",
			Home: "https://web.example.com", Sources: []string{"https://github.com/acme/web", "javascript:alert(1)", "http://plain.example.com"}},
	}
	g := groups(&plan.Plan{Updates: []plan.Update{u}}, "imagebot/")[0]
	b := body(g)
	want := "Chart `web` `1.3.0`: appVersion `1.25.0` → `1.26.0@here` · home: https://web.example.com · sources: https://github.com/acme/web"
	if !strings.Contains(b, want) {
		t.Errorf("body lacks %q:\n%s", want, b)
	}
	for _, bad := range []string{"javascript:", "http://plain"} {
		if strings.Contains(b, bad) {
			t.Errorf("body holds %q:\n%s", bad, b)
		}
	}
	if g.Branch != "imagebot/chart-charts.example.com-web" {
		t.Errorf("branch %q", g.Branch)
	}
}
