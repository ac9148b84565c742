package plan

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/imagebot/imagebot/internal/gate"
	"github.com/imagebot/imagebot/internal/imagefacts"
	"github.com/imagebot/imagebot/internal/policy"
	"github.com/imagebot/imagebot/internal/scan"
)

// listedGit is a GitRepo that lists fixed tags and counts the listings.
type listedGit struct {
	tags  []string
	lists map[string]int
}

func (l *listedGit) List(_ context.Context, repoURL string) (GitListing, error) {
	l.lists[repoURL]++
	var out GitListing
	for _, t := range l.tags {
		out.Tags = append(out.Tags, GitTag{Name: t, Commit: strings.Repeat("a", 40)})
	}
	return out, nil
}

func (l *listedGit) Serves(context.Context, string) (bool, error) { return true, nil }

// anyInspector stands for the run's inspector: git references never ask
// it (their adapter answers), but the gates run only with one.
type anyInspector struct{}

func (anyInspector) Facts(context.Context, name.Reference, imagefacts.Need) (imagefacts.Facts, error) {
	panic("a git tag's facts come from its adapter")
}
func (anyInspector) Verify(context.Context, name.Digest, gate.Signature) (gate.Signer, error) {
	panic("a git tag's signature comes from its adapter")
}
func (anyInspector) Exists(context.Context, name.Digest) (bool, error) { return true, nil }

// TestGitMinAge: the advertisement gives no dates, so minAge measures a
// git tag from its first sighting: held when first seen now (or with no
// record), proposed once the record says it has been known for minAge.
func TestGitMinAge(t *testing.T) {
	now := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)
	res := scan.File("src.yaml", []byte(`apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
spec: {url: https://github.com/argoproj/argo-rollouts, ref: {tag: v1.7.2}}
`))
	def, err := policy.New(policy.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	src := res.Charts[0].Git
	key := sightingKey(gitRepoName(src), gitRepoName(src).Tag("v1.8.0"), "")
	for _, tc := range []struct {
		name      string
		firstSeen map[string]time.Time
		since     time.Time
		want      string
	}{
		{name: "no record", want: "held"},
		{name: "first seen now", firstSeen: map[string]time.Time{}, since: now.AddDate(0, 0, -10), want: "held"},
		{name: "seen 4 days ago", firstSeen: map[string]time.Time{key: now.AddDate(0, 0, -4)}, since: now.AddDate(0, 0, -10), want: "v1.8.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			git := &listedGit{tags: []string{"v1.7.2", "v1.8.0"}, lists: map[string]int{}}
			p, err := Build(t.Context(), res, Options{
				Git: git, Inspector: anyInspector{}, Now: func() time.Time { return now },
				Policy:    func(string, string) (*policy.Policy, error) { return def, nil },
				Gates:     func(string, string) gate.Spec { return gate.Spec{MinAge: 72 * time.Hour} },
				FirstSeen: tc.firstSeen, SeenSince: tc.since,
			})
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			switch {
			case len(p.Updates) == 1:
				got = p.Updates[0].To
			case len(p.Notices) == 1 && p.Notices[0].Reason == ReasonHeld && strings.Contains(p.Notices[0].Detail, "minAge 3d"):
				got = "held"
			}
			if got != tc.want {
				t.Errorf("got %q (updates %+v, notices %+v, problems %+v), want %q", got, p.Updates, p.Notices, p.Problems, tc.want)
			}
			if tc.firstSeen != nil {
				if _, ok := p.Seen[key]; !ok {
					t.Errorf("v1.8.0's sighting is not recorded: %v", p.Seen)
				}
			}
		})
	}
}

// TestGitCost: one listing per repository URL, however many references
// and spellings (.git or not) name it.
func TestGitCost(t *testing.T) {
	var b strings.Builder
	for i := range 40 {
		suffix := ""
		if i%2 == 0 {
			suffix = ".git"
		}
		b.WriteString("  - https://github.com/acme/repo" + string(rune('a'+i%4)) + suffix + "//base?ref=v1.0.0\n")
	}
	res := scan.File("kustomization.yaml", []byte("resources:\n"+b.String()))
	def, _ := policy.New(policy.Spec{})
	git := &listedGit{tags: []string{"v1.0.0", "v1.1.0"}, lists: map[string]int{}}
	p, err := Build(t.Context(), res, Options{Git: git, Policy: func(string, string) (*policy.Policy, error) { return def, nil }})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Updates) != 4 || len(git.lists) != 4 {
		t.Fatalf("%d updates, listings %v: want 4 repositories", len(p.Updates), git.lists)
	}
	for u, n := range git.lists {
		if n != 1 {
			t.Errorf("%s listed %d times, want once", u, n)
		}
	}
}

// TestGitMonorepoTags: a repository tagging several components
// (argo-cd-7.8.0 beside argo-workflows-0.46.0, kustomize/v5.5.0 beside
// api/v0.18.0 and v5.6.0) moves each reference within its own component,
// '/' read as a separator as '-' is.
func TestGitMonorepoTags(t *testing.T) {
	res := scan.File("kustomization.yaml", []byte(`resources:
  - https://github.com/argoproj/argo-helm//charts/argo-cd?ref=argo-cd-7.7.0
  - https://github.com/kubernetes-sigs/kustomize//examples?ref=kustomize/v5.4.1
`))
	def, _ := policy.New(policy.Spec{})
	git := &listedGit{tags: []string{"argo-cd-7.7.0", "argo-cd-7.8.0", "argo-cd-8.0.0-rc1", "argo-workflows-0.46.0",
		"kustomize/v5.4.1", "kustomize/v5.5.0", "api/v0.18.0", "v5.6.0"}, lists: map[string]int{}}
	p, err := Build(t.Context(), res, Options{Git: git, Policy: func(string, string) (*policy.Policy, error) { return def, nil }})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range p.Updates {
		got = append(got, u.From+" -> "+u.To)
	}
	if want := "argo-cd-7.7.0 -> argo-cd-7.8.0, kustomize/v5.4.1 -> kustomize/v5.5.0"; strings.Join(got, ", ") != want {
		t.Errorf("updates %q, want %q (notices %+v)", got, want, p.Notices)
	}
}
