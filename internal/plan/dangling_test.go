package plan_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/imagebot/imagebot/internal/plan"
)

// TestDangling: references to images the registry no longer serves are
// problems of kind dangling that fail the run, whatever else the plan does
// with them; pinned digests cost a HEAD only where the plan did not see
// them already.
func TestDangling(t *testing.T) {
	w := newGateWorld(t)
	w.push(t, "acme/web", "1.0.0", ago(30*day))
	kept := w.push(t, "acme/web", "1.1.0", ago(20*day))
	w.push(t, "acme/old", "2.0.0", ago(20*day))
	w.push(t, "acme/gone", "0.9.0", ago(40*day))
	ones := "sha256:" + strings.Repeat("1", 64) // deleted by a retention policy
	files := map[string]string{"a.yaml": pod(
		"ghcr.io/acme/web:0.9.0",        // 8: deleted tag, a newer one exists
		"ghcr.io/acme/old:2.1.0",        // 10: deleted tag, nothing newer
		"ghcr.io/acme/web:0.8.0@"+kept,  // 12: deleted tag, its digest still pulls
		"ghcr.io/acme/web@"+kept,        // 14: digest only, there
		"ghcr.io/acme/web@"+zeros,       // 16: digest only, gone
		"ghcr.io/acme/gone:9.9.9@"+ones, // 18: deleted tag and digest
		"ghcr.io/acme/web:1.1.0@"+kept,  // 20: up to date, resolved: no HEAD
	)}
	p := w.build(t, files, nil)
	advice := "nodes without the image cached can no longer start this workload: restore the tag or move to another"
	check(t, p,
		[]string{"ghcr.io/acme/web 0.8.0 -> 1.1.0 major", "ghcr.io/acme/web 0.9.0 -> 1.1.0 major"},
		[]string{
			// 10, 16 and 18 are accounted for by their problems alone.
			"a.yaml:14 ghcr.io/acme/web: digest-only: no tag to compare; the digest is kept",
			"a.yaml:20 ghcr.io/acme/web:1.1.0 up-to-date",
		},
		[]string{
			"a.yaml:8 dangling: ghcr.io/acme/web:0.9.0 is gone from the registry (not in its tag list): " + advice + " (this plan moves it to 1.1.0)",
			"a.yaml:10 dangling: ghcr.io/acme/old:2.1.0 is gone from the registry (not in its tag list): " + advice,
			"a.yaml:12 dangling: ghcr.io/acme/web:0.8.0 is gone from the registry's tag list; pulling by the pinned digest works only while the registry keeps it: restore the tag or move to another (this plan moves it to 1.1.0)",
			"a.yaml:16 dangling: ghcr.io/acme/web@000000000000 is gone from the registry (no manifest with that digest): " + advice,
			"a.yaml:18 dangling: ghcr.io/acme/gone:9.9.9@111111111111 is gone from the registry (no manifest with that digest): " + advice,
		})
	for _, pr := range p.Problems {
		if !pr.Failed || pr.Kind != plan.KindDangling {
			t.Errorf("%s:%d: Failed %v, Kind %q; want a failed dangling problem", pr.File, pr.Line, pr.Failed, pr.Kind)
		}
	}
	// HEADs by digest: the digest-only reference that no tag resolved
	// to, and the pinned reference whose tag is gone and that the plan
	// does not move; the up-to-date pinned reference resolved its tag, as
	// before, and so proved the digest-only one at line 14.
	want := []string{
		"HEAD ghcr.io/acme/gone:" + ones,
		"HEAD ghcr.io/acme/web:1.1.0",
		"HEAD ghcr.io/acme/web:" + zeros,
	}
	slices.Sort(want)
	if diff := cmp.Diff(want, manifestRequests(w.srv.Requests())); diff != "" {
		t.Errorf("manifest requests (-want +got):\n%s", diff)
	}
}

// TestDanglingOnSharedLine: a dangling reference takes away the
// contradicting notice of its own image only, not that of another image
// written on the same line.
func TestDanglingOnSharedLine(t *testing.T) {
	w := newGateWorld(t)
	w.push(t, "acme/web", "1.1.0", ago(20*day))
	w.push(t, "acme/old", "2.0.0", ago(20*day))
	files := map[string]string{"a.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n" +
		"spec: {containers: [{name: a, image: \"ghcr.io/acme/old:2.1.0\"}, {name: b, image: \"ghcr.io/acme/web:1.1.0\"}]}\n"}
	p := w.build(t, files, nil)
	advice := "nodes without the image cached can no longer start this workload: restore the tag or move to another"
	check(t, p, nil,
		[]string{"a.yaml:4 ghcr.io/acme/web:1.1.0 up-to-date"},
		[]string{"a.yaml:4 dangling: ghcr.io/acme/old:2.1.0 is gone from the registry (not in its tag list): " + advice})
}

// TestDanglingDigestOfMovedTag: a pinned tag@digest whose digest the
// registry deleted after the tag was pushed again is dangling, whether the
// plan refreshes its digest or moves it to a newer tag; a pinned digest
// that merely became older (still served) is not. Each pinned digest that
// the plan did not see its tag resolve to costs one HEAD, once.
func TestDanglingDigestOfMovedTag(t *testing.T) {
	w := newGateWorld(t)
	old := w.push(t, "acme/web", "1.0.0", ago(30*day))
	rebuilt := w.push(t, "acme/web", "1.0.0", ago(10*day))
	w.srv.Delete(t, "ghcr.io/acme/web", old)
	oldAPI := w.push(t, "acme/api", "2.0.0", ago(30*day))
	w.push(t, "acme/api", "2.0.0", ago(10*day))
	w.srv.Delete(t, "ghcr.io/acme/api", oldAPI)
	newer := w.push(t, "acme/api", "2.1.0", ago(5*day))
	keptOld := w.push(t, "acme/db", "3.0.0", ago(30*day))
	w.push(t, "acme/db", "3.0.0", ago(10*day)) // rebuilt, the old one still served
	w.srv.Reset()

	files := map[string]string{"a.yaml": pod(
		"ghcr.io/acme/web:1.0.0@"+old,    // 8: digest deleted, tag re-pushed
		"ghcr.io/acme/web:1.0.0@"+old,    // 10: the same, once more: no second HEAD
		"ghcr.io/acme/api:2.0.0@"+oldAPI, // 12: digest deleted, a newer tag exists
		"ghcr.io/acme/db:3.0.0@"+keptOld, // 14: rebuilt, the old digest still pulls
	)}
	p := w.build(t, files, nil)
	advice := "nodes without the image cached can no longer start this workload: restore the tag or move to another"
	short := func(d string) string { return d[len("sha256:") : len("sha256:")+12] }
	check(t, p,
		[]string{
			"ghcr.io/acme/api 2.0.0 -> 2.1.0 minor",
			"ghcr.io/acme/db 3.0.0 -> 3.0.0 digest",
			"ghcr.io/acme/web 1.0.0 -> 1.0.0 digest",
		},
		nil,
		[]string{
			"a.yaml:8 dangling: ghcr.io/acme/web:1.0.0@" + short(old) + " is gone from the registry (no manifest with that digest): " + advice + " (this plan moves it to 1.0.0@" + short(rebuilt) + ")",
			"a.yaml:10 dangling: ghcr.io/acme/web:1.0.0@" + short(old) + " is gone from the registry (no manifest with that digest): " + advice + " (this plan moves it to 1.0.0@" + short(rebuilt) + ")",
			"a.yaml:12 dangling: ghcr.io/acme/api:2.0.0@" + short(oldAPI) + " is gone from the registry (no manifest with that digest): " + advice + " (this plan moves it to 2.1.0@" + short(newer) + ")",
		})
	want := []string{
		"HEAD ghcr.io/acme/api:2.1.0",
		"HEAD ghcr.io/acme/api:" + oldAPI,
		"HEAD ghcr.io/acme/db:3.0.0",
		"HEAD ghcr.io/acme/db:" + keptOld,
		"HEAD ghcr.io/acme/web:1.0.0",
		"HEAD ghcr.io/acme/web:" + old,
	}
	slices.Sort(want)
	if diff := cmp.Diff(want, manifestRequests(w.srv.Requests())); diff != "" {
		t.Errorf("manifest requests (-want +got):\n%s", diff)
	}
}

// TestHelmUntaggedPlan: Helm values with a repository and a digest but no
// tag are digest-only references whose digest is checked; with neither,
// a no-tag notice names the image.
func TestHelmUntaggedPlan(t *testing.T) {
	w := newGateWorld(t)
	kept := w.push(t, "acme/web", "1.1.0", ago(20*day))
	files := map[string]string{"values.yaml": "" +
		"web:\n  image:\n    repository: ghcr.io/acme/web\n    digest: " + kept + "\n" + // 4
		"gone:\n  image:\n    repository: ghcr.io/acme/web\n    tag: null\n    digest: " + zeros + "\n" + // 9
		"chart:\n  image:\n    repository: ghcr.io/acme/web\n    tag: null\n", // 12
	}
	p := w.build(t, files, nil)
	advice := "nodes without the image cached can no longer start this workload: restore the tag or move to another"
	check(t, p, nil,
		[]string{
			"values.yaml:4 ghcr.io/acme/web: digest-only: no tag to compare; the digest is kept",
			"values.yaml:12 ghcr.io/acme/web: no-tag: no tag in these values: the chart's default applies (often its appVersion); write tag: to have it updated",
		},
		[]string{"values.yaml:9 dangling: ghcr.io/acme/web@000000000000 is gone from the registry (no manifest with that digest): " + advice})
}
