package gitops_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/prepull"
	"github.com/imagebot/imagebot/internal/timefmt"
)

const (
	worker    = "ghcr.io/acme/worker"
	workerApp = "apps/worker.yaml"
	dsFile    = "platform/prepull/daemonset.yaml"
	ppBranch  = "imagebot/prepull"
	rolloutBr = "imagebot/ghcr.io-acme-worker-build"
)

const prepullConfig = `policies:
  - match: ghcr.io/acme/worker
    pattern: '^build-(?P<version>\d+)$'
    versioning: numeric
prepull:
  match: ["ghcr.io/acme/**"]
  manifest: platform/prepull/daemonset.yaml
  nodeSelector: {imagebot.dev/prepull: "true"}
  lead: 30m
`

// TestPrepull: the first PR adds the new image to the pre-pull DaemonSet
// (a new file); once merged, the rollout waits for the lead, measured from
// the merge; then the rollout PR opens, and it also removes the image from
// the DaemonSet.
func TestPrepull(t *testing.T) {
	t.Parallel()
	eachHost(t, func(t *testing.T, on worldOption) {
		w := newWorld(t, on, withFiles(map[string][]byte{workerApp: []byte(deployment(worker + ":build-9"))}))
		w.configure(t, prepullConfig)

		res := w.rolloutRun(t)
		if !slices.Equal(res.Opened, []string{ppBranch}) {
			t.Fatalf("opened %v, want only the pre-pull", res.Opened)
		}
		pr := w.openPRs()[ppBranch]
		if pr.Title != "Pre-pull ghcr.io/acme/worker build-11 on the nodes" {
			t.Errorf("title %q", pr.Title)
		}
		contains(t, "PR body", pr.Body, "| `ghcr.io/acme/worker` | `build-11` | `apps/worker.yaml:10` |", "The DaemonSet is `"+dsFile+"`")
		if got := changedFiles(t, w.mainTip(t), w.commit(t, ppBranch)); !slices.Equal(got, []string{dsFile}) {
			t.Errorf("the pre-pull changes %v", got)
		}
		ds := fileOf(t, w.commit(t, ppBranch), dsFile)
		if es, err := prepull.Entries([]byte(ds)); err != nil || !slices.Equal(es, []prepull.Entry{{Image: worker, Tag: "build-11"}}) {
			t.Errorf("DaemonSet pulls %v (%v):\n%s", es, err, ds)
		}
		contains(t, "DaemonSet", ds, "imagebot.dev/prepull: \"true\"", "- /prepull/imagebot\n        - version\n")

		// Merged ten minutes in: the rollout waits until 30 minutes after the
		// merge.
		w.advance(10 * time.Minute)
		if err := w.host.merge(pr.Number); err != nil {
			t.Fatal(err)
		}
		merged := w.clock.Now()
		w.advance(20 * time.Minute)
		res = w.rolloutRun(t)
		if len(res.Opened) != 0 || len(w.openPRs()) != 0 {
			t.Fatalf("within the lead: result %+v", res)
		}
		after := timefmt.Stamp(merged.Add(30 * time.Minute))
		contains(t, "notices", strings.Join(w.noticesOf("prepulling"), "\n"), worker+":build-9 pre-pulling build-11 since", "rollout after "+after)

		// The lead has passed: the rollout opens and cleans up.
		w.advance(11 * time.Minute)
		res = w.rolloutRun(t)
		if !slices.Equal(res.Opened, []string{rolloutBr}) {
			t.Fatalf("after the lead: opened %v", res.Opened)
		}
		pr = w.openPRs()[rolloutBr]
		contains(t, "rollout body", pr.Body, "`build-11` has been pre-pulled on the nodes since", "longer than the lead of 30m",
			"Also edits `"+dsFile+"` (removes ghcr.io/acme/worker from the pre-pull DaemonSet")
		tip := w.commit(t, rolloutBr)
		if got := changedFiles(t, w.mainTip(t), tip); !slices.Equal(got, []string{workerApp, dsFile}) {
			t.Errorf("the rollout changes %v", got)
		}
		if es, _ := prepull.Entries([]byte(fileOf(t, tip, dsFile))); len(es) != 0 {
			t.Errorf("the rollout leaves %v in the DaemonSet", es)
		}

		// Merged: the DaemonSet entry is gone, nothing more to do.
		if err := w.host.merge(pr.Number); err != nil {
			t.Fatal(err)
		}
		if es, _ := prepull.Entries([]byte(w.mainFile(t, dsFile))); len(es) != 0 || !strings.Contains(w.mainFile(t, workerApp), "build-11") {
			t.Errorf("after the rollout: DaemonSet %v, app:\n%s", es, w.mainFile(t, workerApp))
		}
		before := w.counters()
		res = w.rolloutRun(t)
		if after := w.counters(); after != before || len(res.Opened) != 0 {
			t.Errorf("after everything: %+v -> %+v, %+v", before, after, res)
		}
	})
}

// TestPrepullDeclined: closing the pre-pull PR declines those versions:
// neither pre-pulled nor rolled out.
func TestPrepullDeclined(t *testing.T) {
	t.Parallel()
	eachHost(t, func(t *testing.T, on worldOption) {
		w := newWorld(t, on, withFiles(map[string][]byte{workerApp: []byte(deployment(worker + ":build-9"))}))
		w.configure(t, prepullConfig)
		w.rolloutRun(t)
		if err := w.host.close(w.openPRs()[ppBranch].Number); err != nil {
			t.Fatal(err)
		}
		res := w.rolloutRun(t)
		if len(w.openPRs()) != 0 || !slices.Equal(res.Declined, []string{ppBranch}) {
			t.Errorf("after closing the pre-pull: open %v, result %+v", w.openPRs(), res)
		}
	})
}
