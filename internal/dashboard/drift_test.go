package dashboard

import (
	"strings"
	"testing"
)

// The Drift section lists each finding with its file and line (linked),
// or the image when no file names it; a dashboard with only drift is not
// "nothing to do".
func TestRenderDrift(t *testing.T) {
	body := Render(View{Drift: []Note{
		{Where: "envs/prod/web.yaml:11", URL: "https://example.com/blob/abc/envs/prod/web.yaml#L11", Text: "`mixed`: cluster prod, Deployment prod/web runs 2 builds"},
		{Where: "ghcr.io/acme/tool", Text: "`undeclared`: cluster prod, Deployment prod/tool runs ghcr.io/acme/tool"},
	}})
	for _, want := range []string{
		"## Drift\n\n",
		"- [`envs/prod/web.yaml:11`](https://example.com/blob/abc/envs/prod/web.yaml#L11): `mixed`: cluster prod",
		"- `ghcr.io/acme/tool`: `undeclared`: ",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "Nothing to do") {
		t.Errorf("a dashboard with drift says nothing to do:\n%s", body)
	}
}
