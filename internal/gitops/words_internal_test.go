package gitops

import (
	"log/slog"
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

// named is a Forge that only names itself, for the words the runner
// writes there.
type named struct {
	Forge
	name string
}

func (n named) Name() string { return n.name }

// TestWordsPerHost: each host's words in what the bot writes there and
// in the CLI (WordsOf): GitLab's merge request !3, Azure DevOps' pull
// request !3 (#3 links a work item there), pull request #3 elsewhere; in
// the comment that closes a superseded PR and the refusal of a branch
// someone else's PR holds as well.
func TestWordsPerHost(t *testing.T) {
	for _, tc := range []struct {
		name string
		kind Kind
		want string
	}{
		{"GitHub", GitHub, "pull request #3"},
		{"Gitea", Gitea, "pull request #3"},
		{"Bitbucket", "bitbucket", "pull request #3"},
		{"Bitbucket Data Center", "bitbucket-server", "pull request #3"},
		{"GitLab", GitLab, "merge request !3"},
		{"Azure DevOps", "azure", "pull request !3"},
	} {
		r := &runner{h: named{name: tc.name}, log: slog.New(slog.DiscardHandler), res: &Result{PullRequests: map[string]PullRequest{"imagebot/x": {Number: 3}}}}
		if got := r.words("pull request") + " " + r.num(3); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
		w := WordsOf(tc.kind)
		if got := w.One + " " + w.Sigil + "3"; got != tc.want {
			t.Errorf("WordsOf(%s): %q, want %q", tc.kind, got, tc.want)
		}
		sigil := tc.want[strings.LastIndex(tc.want, " ")+1:]
		if c := r.supersededComment("imagebot/x"); !strings.Contains(c, sigil+" carries") {
			t.Errorf("%s: the superseded comment does not name %s:\n%s", tc.name, sigil, c)
		}
		if err := r.blocked("imagebot/y", &Change{Number: 3, Author: "alice"}); !strings.HasPrefix(err.Error(), tc.want+" from this branch") {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
