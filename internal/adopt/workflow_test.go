package adopt

import (
	"io"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
)

// TestWorkflowLints runs actionlint on the workflows init writes, with and
// without the ghcr.io permission and the secrets' env comment.
func TestWorkflowLints(t *testing.T) {
	for name, hosts := range map[string][]*host{
		"public":  {{name: "docker.io"}},
		"private": {{name: "ghcr.io"}, {name: "registry.acme.example:5000"}},
	} {
		t.Run(name, func(t *testing.T) {
			wf, err := workflow("v1.2.3", "0 4 * * 1", hosts)
			if err != nil {
				t.Fatal(err)
			}
			l, err := actionlint.NewLinter(io.Discard, &actionlint.LinterOptions{})
			if err != nil {
				t.Fatal(err)
			}
			errs, err := l.Lint(WorkflowPath, wf, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range errs {
				t.Errorf("%d:%d: %s [%s]\n%s", e.Line, e.Column, e.Message, e.Kind, wf)
			}
			if !strings.Contains(string(wf), "uses: imagebot/imagebot@v1.2.3\n") {
				t.Errorf("workflow does not use the Action at v1.2.3:\n%s", wf)
			}
			if got := strings.Contains(string(wf), "REGISTRY_ACME_EXAMPLE_TOKEN: ${{ secrets.REGISTRY_ACME_EXAMPLE_TOKEN }}"); got != (name == "private") {
				t.Errorf("secrets env comment present = %v, want %v:\n%s", got, name == "private", wf)
			}
		})
	}
}
