package rollout_test

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/imagename"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/policy"
	"github.com/imagebot/imagebot/internal/rollout"
	"github.com/imagebot/imagebot/internal/scan"
)

// now is the time of the runs in these tests.
var now = time.Date(2024, 6, 10, 12, 0, 0, 0, time.UTC)

// commit is one commit of a fake default branch: the whole tree.
type commit struct {
	hash  string
	ago   time.Duration
	files map[string]string
}

// history is a default branch as a list of commits, oldest first, each
// holding the files that differ from its parent (nil content: deleted).
type history struct {
	commits []commit
	limit   int // commits a walk looks at; 0: all
}

var _ rollout.History = (*history)(nil)

// tree is the full tree after commit i.
func (h *history) tree(i int) map[string]string {
	t := map[string]string{}
	for _, c := range h.commits[:i+1] {
		for f, s := range c.files {
			if s == "" {
				delete(t, f)
			} else {
				t[f] = s
			}
		}
	}
	return t
}

func (h *history) commitOf(i int) rollout.Commit {
	c := h.commits[i]
	return rollout.Commit{Hash: c.hash, Time: now.Add(-c.ago)}
}

func (h *history) Changes(ctx context.Context, want func(string) bool, each func(rollout.Change) bool) error {
	for i, n := len(h.commits)-1, 0; i >= 0; i, n = i-1, n+1 {
		if h.limit > 0 && n == h.limit {
			return &rollout.TruncatedError{Oldest: h.commitOf(i + 1)}
		}
		after := h.tree(i)
		before := map[string]string{}
		if i > 0 {
			before = h.tree(i - 1)
		}
		ch := rollout.Change{Commit: h.commitOf(i), Before: map[string][]byte{}}
		for _, f := range slices.Sorted(maps.Keys(mergeKeys(before, after))) {
			if !want(f) || before[f] == after[f] {
				continue
			}
			if b, ok := before[f]; ok {
				ch.Before[f] = []byte(b)
			} else {
				ch.Before[f] = nil
			}
		}
		if len(ch.Before) > 0 && !each(ch) {
			return nil
		}
	}
	return nil
}

func mergeKeys(a, b map[string]string) map[string]bool {
	m := map[string]bool{}
	for k := range a {
		m[k] = true
	}
	for k := range b {
		m[k] = true
	}
	return m
}

// tipFS is the tip's tree.
func (h *history) tipFS() fs.FS {
	m := fstest.MapFS{}
	for f, s := range h.tree(len(h.commits) - 1) {
		m[f] = &fstest.MapFile{Data: []byte(s)}
	}
	return m
}

// statuses are the fake GitHub's: commit -> context -> state.
type statuses map[string]map[string]string

func (s statuses) Statuses(_ context.Context, commit string) (map[string]string, error) {
	if st, ok := s[commit]; ok {
		return st, nil
	}
	return map[string]string{}, nil
}

// registry answers digests.
type registry struct{}

func (registry) Tags(context.Context, name.Repository) ([]string, error) { return nil, nil }
func (registry) Digest(_ context.Context, ref name.Tag) (string, error) {
	repo, tag := imagename.String(ref.Context()), ref.TagStr()
	return "sha256:" + strings.Repeat(fmt.Sprintf("%x", len(repo+tag)%16), 64), nil
}

// deploy is a manifest with one container per image.
func deploy(images ...string) string {
	s := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\nspec:\n  template:\n    spec:\n      containers:\n"
	for i, img := range images {
		s += fmt.Sprintf("        - name: c%d\n          image: %s\n", i, img)
	}
	return s
}

func parseConfig(t *testing.T, yaml string) *config.Config {
	t.Helper()
	cfg, err := config.Parse(".imagebot.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func defaultPolicy(string) (*policy.Policy, error) { return policy.New(policy.Spec{}) }

// basePlan is what plan.Build leaves for the tip: every promoted
// reference with its notice, and the given updates.
func basePlan(cfg *config.Config, refs []scan.Ref, ups ...plan.Update) *plan.Plan {
	p := &plan.Plan{Updates: ups}
	for _, r := range refs {
		if cfg.For(r.Image, r.File).Skip {
			p.Notices = append(p.Notices, plan.Notice{File: r.File, Line: r.Line, Image: r.Image, Tag: r.Tag, Reason: plan.ReasonSkipped, Detail: "skip: true"})
			continue
		}
		if e := cfg.EnvironmentFor(r.File); e != nil && e.PromoteFrom != "" {
			p.Notices = append(p.Notices, plan.Notice{File: r.File, Line: r.Line, Image: r.Image, Tag: r.Tag, Reason: plan.ReasonPromoted, Detail: "from " + e.PromoteFrom})
		}
	}
	return p
}

// scanTip scans the tip's tree.
func scanTip(t *testing.T, h *history, cfg *config.Config) []scan.Ref {
	t.Helper()
	res, err := scan.FS(t.Context(), h.tipFS(), cfg.Included)
	if err != nil {
		t.Fatal(err)
	}
	return res.Refs
}

func updateLines(p *plan.Plan) []string {
	var out []string
	for _, u := range p.Updates {
		var locs []string
		for _, l := range u.Locations {
			locs = append(locs, fmt.Sprintf("%s:%d", l.File, l.Line))
		}
		img := u.Image
		if got := imagename.String(u.Repo); got != img {
			img += " (Repo " + got + ")" // the name a PR body's details are looked up with
		}
		s := fmt.Sprintf("%s %s %s -> %s env=%s group=%s %v", u.Kind, img, u.From, u.To, u.Environment, u.Group, locs)
		for _, e := range u.Grounds {
			s += "\n  " + e
		}
		if u.Notice != "" {
			s += "\n  note: " + u.Notice
		}
		out = append(out, s)
	}
	return out
}

func noticeLines(p *plan.Plan) []string {
	var out []string
	for _, n := range p.Notices {
		out = append(out, fmt.Sprintf("%s:%d %s:%s %s: %s", n.File, n.Line, n.Image, n.Tag, n.Reason, n.Detail))
	}
	return out
}
