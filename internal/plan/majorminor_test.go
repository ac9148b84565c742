package plan_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/imagebot/imagebot/internal/plan"
)

// TestSeparateMajorMinor: with Options.SeparateMajorMinor, a major update
// carries the newest version within the current major (for `run`'s second
// pull request), with every place the major moves and located as the
// major's; apply's update, the newest, is unchanged. An update that is no
// major, or whose major has nothing newer, carries none; a lockstep
// group's carries the best tag within the major that every member has.
func TestSeparateMajorMinor(t *testing.T) {
	repos := map[string][][]string{
		"docker.io/library/node":  {{"20.11.1"}, {"20.12.2"}, {"20.13.0"}, {"22.1.0"}},
		"ghcr.io/acme/api":        {{"v1.7.0"}, {"v2.0.0"}},
		"docker.io/library/nginx": {{"1.25.3"}, {"1.26.1"}},
		"ghcr.io/kolla/nova":      {{"2024.1.0"}, {"2024.1.1"}, {"2024.2.0"}, {"2025.1.0"}},
		"ghcr.io/kolla/glance":    {{"2024.1.0"}, {"2024.1.1"}, {"2025.1.0"}},
	}
	reg := newRegistry(t, repos)
	res := scanFiles(t, map[string]string{
		"a.yaml": pod("node:20.11.1", "node:20.12.2", "ghcr.io/acme/api:v1.7.0", "nginx:1.25.3"),
		"b.yaml": pod("ghcr.io/kolla/nova:2024.1.0", "ghcr.io/kolla/glance:2024.1.0"),
	})
	summary := func(separate bool) []string {
		p, err := plan.Build(t.Context(), res, plan.Options{Registry: reg.client(), Policy: policies(t, nil), SeparateMajorMinor: separate,
			Group: func(img string) plan.Group {
				if img == "ghcr.io/kolla/nova" || img == "ghcr.io/kolla/glance" {
					return plan.Group{Name: "kolla", Lockstep: true}
				}
				return plan.Group{}
			}})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, u := range p.Updates {
			s := fmt.Sprintf("%s %s->%s %s", imageOf(u), u.From, u.To, u.Type)
			if m := u.Minor; m != nil {
				s += fmt.Sprintf(" / %s->%s %s %d", m.From, m.To, m.Type, len(m.Locations))
			}
			out = append(out, s)
		}
		return out
	}
	want := []string{
		"docker.io/library/nginx 1.25.3->1.26.1 minor",
		"docker.io/library/node 20.11.1->22.1.0 major / 20.11.1->20.13.0 minor 1",
		"docker.io/library/node 20.12.2->22.1.0 major / 20.12.2->20.13.0 minor 1",
		"ghcr.io/acme/api v1.7.0->v2.0.0 major",
		"ghcr.io/kolla/glance 2024.1.0->2025.1.0 major / 2024.1.0->2024.1.1 patch 1",
		"ghcr.io/kolla/nova 2024.1.0->2025.1.0 major / 2024.1.0->2024.1.1 patch 1",
	}
	if d := cmp.Diff(want, summary(true)); d != "" {
		t.Errorf("separate (-want +got):\n%s", d)
	}
	for i := range want {
		want[i], _, _ = strings.Cut(want[i], " / ")
	}
	if d := cmp.Diff(want, summary(false)); d != "" {
		t.Errorf("one PR per stream (-want +got):\n%s", d)
	}
}
