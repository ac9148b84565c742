package plan_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/imagebot/imagebot/internal/gate"
	"github.com/imagebot/imagebot/internal/gate/inspect"
	"github.com/imagebot/imagebot/internal/plan"
)

// kolla is released as a set, but pushed image by image: nova already has
// 2024.2.0, glance and keystone not yet.
var kolla = map[string][][]string{
	"ghcr.io/kolla/nova":     {{"2024.1.0"}, {"2024.1.1"}, {"2024.2.0"}},
	"ghcr.io/kolla/glance":   {{"2024.1.0"}, {"2024.1.1"}},
	"ghcr.io/kolla/keystone": {{"2024.1.0"}, {"2024.1.1"}, {"2024.1.2"}},
	"ghcr.io/acme/api":       {{"v1.7.0"}, {"v1.8.2"}},
}

func kollaGroup(lockstep bool) func(string) plan.Group {
	return func(img string) plan.Group {
		if strings.HasPrefix(img, "ghcr.io/kolla/") {
			return plan.Group{Name: "kolla", Lockstep: lockstep}
		}
		return plan.Group{}
	}
}

func groupUpdateLines(p *plan.Plan) []string {
	var out []string
	for _, u := range p.Updates {
		var locs []string
		for _, l := range u.Locations {
			locs = append(locs, fmt.Sprintf("%s:%d", l.File, l.Line))
		}
		s := fmt.Sprintf("%s %s -> %s group=%s %v", u.Image, u.From, u.To, u.Group, locs)
		if u.Notice != "" {
			s += " notice: " + u.Notice
		}
		out = append(out, s)
	}
	return out
}

// TestLockstep: the members of a lockstep group move to the best tag every
// member has: 2024.2.0 waits for the members that lack it, and so does
// keystone's 2024.1.2; a member at the common tag already stays, told why.
func TestLockstep(t *testing.T) {
	reg := newRegistry(t, kolla)
	files := map[string]string{
		"a.yaml": pod(
			"ghcr.io/kolla/nova:2024.1.0",     // 8
			"ghcr.io/kolla/glance:2024.1.1",   // 10: at the common tag already
			"ghcr.io/kolla/keystone:2024.1.0", // 12
			"ghcr.io/acme/api:v1.7.0",         // 14: no group
		),
	}
	tests := []struct {
		name                  string
		lockstep              bool
		wantUpdates, wantNote []string
	}{{
		name:     "lockstep",
		lockstep: true,
		wantUpdates: []string{
			"ghcr.io/acme/api v1.7.0 -> v1.8.2 group= [a.yaml:14]",
			"ghcr.io/kolla/keystone 2024.1.0 -> 2024.1.1 group=kolla [a.yaml:12] notice: " + waits,
			"ghcr.io/kolla/nova 2024.1.0 -> 2024.1.1 group=kolla [a.yaml:8]",
		},
		wantNote: []string{"a.yaml:10 ghcr.io/kolla/glance:2024.1.1 lockstep: " + waits},
	}, {
		// Without lockstep the group shares a PR, but each member takes
		// its own newest.
		name: "group",
		wantUpdates: []string{
			"ghcr.io/acme/api v1.7.0 -> v1.8.2 group= [a.yaml:14]",
			"ghcr.io/kolla/keystone 2024.1.0 -> 2024.1.2 group=kolla [a.yaml:12]",
			"ghcr.io/kolla/nova 2024.1.0 -> 2024.2.0 group=kolla [a.yaml:8]",
		},
		wantNote: []string{"a.yaml:10 ghcr.io/kolla/glance:2024.1.1 up-to-date"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := plan.Build(t.Context(), scanFiles(t, files), plan.Options{
				Registry: reg.client(), Policy: policies(t, nil), Group: kollaGroup(tc.lockstep),
			})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantUpdates, groupUpdateLines(p)); diff != "" {
				t.Errorf("updates (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantNote, noticeLines(p)); diff != "" {
				t.Errorf("notices (-want +got):\n%s", diff)
			}
		})
	}
}

const waits = "lockstep group kolla: 2024.1.2 waits for ghcr.io/kolla/glance, ghcr.io/kolla/nova, which lack it; 2024.2.0 waits for ghcr.io/kolla/glance, ghcr.io/kolla/keystone, which lack it"

// TestLockstepNoCommonTag: when no tag is common to every member, nobody
// moves, and every member's reference says so.
func TestLockstepNoCommonTag(t *testing.T) {
	reg := newRegistry(t, map[string][][]string{
		"ghcr.io/kolla/nova":   {{"2024.1.0"}, {"2024.2.0"}},
		"ghcr.io/kolla/glance": {{"2024.1.0"}, {"2024.1.1"}},
	})
	files := map[string]string{"a.yaml": pod("ghcr.io/kolla/nova:2024.1.0", "ghcr.io/kolla/glance:2024.1.0")}
	p, err := plan.Build(t.Context(), scanFiles(t, files), plan.Options{
		Registry: reg.client(), Policy: policies(t, nil), Group: kollaGroup(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Updates) != 0 {
		t.Errorf("updates %v, want none", groupUpdateLines(p))
	}
	detail := "lockstep group kolla: 2024.1.1 waits for ghcr.io/kolla/nova, which lacks it; 2024.2.0 waits for ghcr.io/kolla/glance, which lacks it"
	want := []string{
		"a.yaml:8 ghcr.io/kolla/nova:2024.1.0 lockstep: " + detail,
		"a.yaml:10 ghcr.io/kolla/glance:2024.1.0 lockstep: " + detail,
	}
	if diff := cmp.Diff(want, noticeLines(p)); diff != "" {
		t.Errorf("notices (-want +got):\n%s", diff)
	}
}

// TestPromotedLeftAlone: references of an environment promoted from
// another never take the registry's newest; nothing is looked up for them.
func TestPromotedLeftAlone(t *testing.T) {
	reg := newRegistry(t, seed)
	files := map[string]string{
		"envs/staging/a.yaml":    pod("nginx:1.25.3"),
		"envs/production/a.yaml": pod("nginx:1.25.3", "busybox:1.36.0"),
	}
	p, err := plan.Build(t.Context(), scanFiles(t, files), plan.Options{
		Registry: reg.client(), Policy: policies(t, nil),
		Promoted: func(file string) (string, string) {
			if strings.HasPrefix(file, "envs/production/") {
				return "production", "staging"
			}
			return "", ""
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	wantUpdates := []string{"docker.io/library/nginx 1.25.3 -> 1.26.1 group= [envs/staging/a.yaml:8]"}
	if diff := cmp.Diff(wantUpdates, groupUpdateLines(p)); diff != "" {
		t.Errorf("updates (-want +got):\n%s", diff)
	}
	why := "production takes its versions from staging, once they soaked there (imagebot run decides, from the default branch's history)"
	wantNotes := []string{
		"envs/production/a.yaml:8 docker.io/library/nginx:1.25.3 promoted: " + why,
		"envs/production/a.yaml:10 docker.io/library/busybox:1.36.0 promoted: " + why,
	}
	if diff := cmp.Diff(wantNotes, noticeLines(p)); diff != "" {
		t.Errorf("notices (-want +got):\n%s", diff)
	}
}

// TestLockstepGateHolds: when a gate holds the group's tag back for one
// member (too new for minAge), no member moves: the group keeps one tag.
func TestLockstepGateHolds(t *testing.T) {
	w := newGateWorld(t)
	w.push(t, "kolla/nova", "1.0.0", ago(30*day))
	w.push(t, "kolla/nova", "1.1.0", ago(10*day))
	w.push(t, "kolla/glance", "1.0.0", ago(30*day))
	w.push(t, "kolla/glance", "1.1.0", ago(time.Hour))
	reg := w.client()
	files := map[string]string{"a.yaml": pod("ghcr.io/kolla/nova:1.0.0", "ghcr.io/kolla/glance:1.0.0")}
	p, err := plan.Build(t.Context(), scanFiles(t, files), plan.Options{
		Registry:  reg,
		Policy:    policies(t, nil),
		Inspector: inspect.New(reg),
		Gates:     func(string, string) gate.Spec { return gate.Spec{MinAge: 3 * day} },
		Now:       func() time.Time { return now },
		Group:     kollaGroup(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Updates) != 0 {
		t.Errorf("updates %v, want none while glance's 1.1.0 is too new", groupUpdateLines(p))
	}
	why := "lockstep group kolla: 1.1.0 waits, since ghcr.io/kolla/glance:1.0.0 cannot move there yet"
	var got []string
	for _, n := range p.Notices {
		if n.Reason == plan.ReasonLockstep {
			got = append(got, n.Image+" "+n.Detail)
		}
	}
	if want := []string{"ghcr.io/kolla/nova " + why}; !slices.Equal(got, want) {
		t.Errorf("lockstep notices %q, want %q (all notices: %q)", got, want, noticeLines(p))
	}
}
