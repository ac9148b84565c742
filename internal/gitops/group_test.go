package gitops_test

import (
	"slices"
	"strings"
	"testing"
)

const (
	nova     = "quay.io/openstack.kolla/nova"
	glance   = "quay.io/openstack.kolla/glance"
	keystone = "quay.io/openstack.kolla/keystone"
)

var kollaFiles = map[string][]byte{
	"openstack/nova.yaml":     []byte(deployment(nova + ":2024.1.0")),
	"openstack/glance.yaml":   []byte(deployment(glance + ":2024.1.0")),
	"openstack/keystone.yaml": []byte(deployment(keystone + ":2024.1.0")),
}

const openstackConfig = `groups:
  - name: openstack
    match: ["quay.io/openstack.kolla/**"]
    lockstep: true
`

const groupBranch = "imagebot/group-openstack"

// TestGroupLockstep: the members of a lockstep group move to one tag
// every member has, in one branch, one commit and one PR. A release pushed
// to some members only waits, and says which lack it; once the last member
// has it, the same PR moves on. Closing the PR declines exactly the
// versions it proposed; a newer release is proposed anew.
func TestGroupLockstep(t *testing.T) {
	t.Parallel()
	eachHost(t, func(t *testing.T, on worldOption) {
		w := newWorld(t, on, withFiles(kollaFiles))
		w.configure(t, openstackConfig)

		// The seed has nova 2024.2.0, but glance and keystone only 2024.1.1.
		res := w.rolloutRun(t)
		if !slices.Equal(res.Opened, []string{groupBranch}) {
			t.Fatalf("opened %v, want only %s", res.Opened, groupBranch)
		}
		pr := w.openPRs()[groupBranch]
		if pr.Title != "Update openstack group to 2024.1.1" {
			t.Errorf("title %q", pr.Title)
		}
		contains(t, "PR body", pr.Body,
			"moves the images of the **openstack** group together, to `2024.1.1`",
			"Note: lockstep group openstack: 2024.2.0 waits for quay.io/openstack.kolla/glance, quay.io/openstack.kolla/keystone, which lack it.",
			"| `openstack/nova.yaml:10` | `quay.io/openstack.kolla/nova` | `2024.1.0` | `2024.1.1` | patch |",
			`<!-- imagebot:v2 {"kind":"group","group":"openstack","branch":"imagebot/group-openstack","moves":[`)
		tip := w.commit(t, groupBranch)
		if tip.NumParents() != 1 || tip.ParentHashes[0] != w.mainTip(t).Hash {
			t.Errorf("the group's branch is not one commit on main")
		}
		if got := changedFiles(t, w.mainTip(t), tip); !slices.Equal(got, []string{"openstack/glance.yaml", "openstack/keystone.yaml", "openstack/nova.yaml"}) {
			t.Errorf("the commit changes %v", got)
		}

		// A rerun changes nothing.
		before := w.counters()
		res = w.rolloutRun(t)
		if after := w.counters(); after != before || !slices.Equal(res.Unchanged, []string{groupBranch}) {
			t.Errorf("rerun wrote %+v -> %+v, result %+v", before, after, res)
		}

		// 2024.2.0 reaches glance: keystone still lacks it, the PR stays.
		w.pushTag(t, glance, "2024.2.0")
		w.rolloutRun(t)
		if pr := w.openPRs()[groupBranch]; pr.Title != "Update openstack group to 2024.1.1" ||
			!strings.Contains(pr.Body, "2024.2.0 waits for quay.io/openstack.kolla/keystone, which lacks it") {
			t.Errorf("after glance 2024.2.0: %q\n%s", pr.Title, pr.Body)
		}

		// The last member has it: the same PR moves to 2024.2.0.
		w.pushTag(t, keystone, "2024.2.0")
		res = w.rolloutRun(t)
		pr2 := w.openPRs()[groupBranch]
		if !slices.Equal(res.Updated, []string{groupBranch}) || pr2.Number != pr.Number || pr2.Title != "Update openstack group to 2024.2.0" {
			t.Errorf("after keystone 2024.2.0: result %+v, PR #%d %q", res, pr2.Number, pr2.Title)
		}
		if strings.Contains(pr2.Body, "waits") {
			t.Errorf("body still says something waits:\n%s", pr2.Body)
		}

		// Closed without merging: 2024.2.0 is declined for the group.
		if err := w.host.close(pr2.Number); err != nil {
			t.Fatal(err)
		}
		res = w.rolloutRun(t)
		if len(w.openPRs()) != 0 || !slices.Equal(res.Declined, []string{groupBranch}) {
			t.Errorf("after closing: open %v, result %+v", w.openPRs(), res)
		}

		// A newer release everywhere is proposed anew.
		for _, img := range []string{nova, glance, keystone} {
			w.pushTag(t, img, "2024.2.1")
		}
		res = w.rolloutRun(t)
		if pr3 := w.openPRs()[groupBranch]; !slices.Equal(res.Opened, []string{groupBranch}) || pr3.Title != "Update openstack group to 2024.2.1" {
			t.Errorf("after 2024.2.1: result %+v, PR %q", res, pr3.Title)
		}
	})
}

// TestGroupMembership: a member leaving the group converges on the next
// run: the group's PR is recomputed without it, and it gets its own.
func TestGroupMembership(t *testing.T) {
	t.Parallel()
	eachHost(t, func(t *testing.T, on worldOption) {
		w := newWorld(t, on, withFiles(kollaFiles))
		w.configure(t, openstackConfig)
		w.rolloutRun(t)
		w.configure(t, `groups:
  - name: openstack
    match: ["quay.io/openstack.kolla/nova", "quay.io/openstack.kolla/glance"]
    lockstep: true
`)
		res := w.rolloutRun(t)
		open := w.openPRs()
		own := "imagebot/quay.io-openstack.kolla-keystone"
		if !slices.Equal(res.Updated, []string{groupBranch}) || !slices.Equal(res.Opened, []string{own}) {
			t.Errorf("result %+v", res)
		}
		if got := changedFiles(t, w.mainTip(t), w.commit(t, groupBranch)); !slices.Equal(got, []string{"openstack/glance.yaml", "openstack/nova.yaml"}) {
			t.Errorf("the group's commit changes %v", got)
		}
		if strings.Contains(open[groupBranch].Body, "keystone") {
			t.Errorf("the group's PR still names keystone:\n%s", open[groupBranch].Body)
		}
		if open[own].Title != "Update quay.io/openstack.kolla/keystone to 2024.1.1" {
			t.Errorf("keystone's own PR: %q", open[own].Title)
		}
	})
}
