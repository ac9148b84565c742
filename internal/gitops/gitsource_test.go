package gitops

import (
	"testing"

	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/scan"
)

func TestGitNotes(t *testing.T) {
	up := func(repo string) plan.Update {
		return plan.Update{Kind: plan.KindGitTag, To: "v1.8.0", Changes: []plan.Change{{Ref: scan.Ref{Git: &scan.GitSource{URL: repo}}}}}
	}
	for _, tc := range []struct {
		u    plan.Update
		want string
	}{
		{up("https://github.com/argoproj/argo-rollouts"), "Tag `v1.8.0` of https://github.com/argoproj/argo-rollouts: release notes at https://github.com/argoproj/argo-rollouts/releases/tag/v1.8.0"},
		{up("https://gitlab.com/acme/ops"), "Tag `v1.8.0` of https://gitlab.com/acme/ops: release notes at https://gitlab.com/acme/ops/-/releases/v1.8.0"},
		{up("http://127.0.0.1:8080/acme/ops"), ""},
		{plan.Update{To: "1.2.3"}, ""},
	} {
		if got := gitNotes(tc.u); got != tc.want {
			t.Errorf("gitNotes = %q, want %q", got, tc.want)
		}
	}
}
