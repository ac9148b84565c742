package job

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/drift"
	"github.com/imagebot/imagebot/internal/imagename"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/scan"
)

// Kube is how run and serve reach the clusters of the config's
// `clusters:` (drift); the zero value reads KUBECONFIG or ~/.kube/config.
type Kube struct {
	Kubeconfig string // --kubeconfig
	InCluster  bool   // serve: the pod's service account when no kubeconfig exists
	// Source, when set, replaces the client-go Source (tests).
	Source func(c config.Cluster) (drift.Source, error)
}

// source is the Source of cluster c.
func (k Kube) source(c config.Cluster) (drift.Source, string, error) {
	if k.Source != nil {
		s, err := k.Source(c)
		return s, c.Name, err
	}
	rc, err := restConfig(DriftOptions{Kubeconfig: k.Kubeconfig, InCluster: k.InCluster}, c.Context)
	if err != nil {
		return nil, "", err
	}
	client, err := drift.NewREST(rc)
	if err != nil {
		return nil, "", err
	}
	return &drift.Kube{Client: client, Namespaces: nonEmpty(c.Namespaces), LabelSelector: c.Selector}, rc.Host, nil
}

func nonEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// compareClusters computes the drift of every cluster of the config
// against refs; a cluster that cannot be read is a problem of the report.
func compareClusters(ctx context.Context, k Kube, e *engine, refs []drift.Reference) *drift.Report {
	rep := &drift.Report{Drift: []drift.Finding{}, Notices: []drift.Notice{}, Problems: []drift.Notice{}}
	for _, c := range e.cfg.Clusters {
		src, where, err := k.source(c)
		if err == nil {
			var pods []drift.Pod
			var notices []string
			pods, notices, err = src.Running(ctx)
			if err == nil {
				var mine []drift.Reference
				for _, r := range refs {
					if c.Runs(r.File) {
						mine = append(mine, r)
					}
				}
				in := drift.Input{Cluster: c.Name, Refs: mine, Pods: pods, Registry: e.reg, Namespaces: nonEmpty(c.Namespaces)}
				if k, ok := src.(*drift.Kube); ok {
					in.Unread = k.Unread
				}
				one := drift.Compare(ctx, in)
				rep.Drift = append(rep.Drift, one.Drift...)
				rep.Notices = append(rep.Notices, one.Notices...)
				for _, n := range notices {
					rep.Notices = append(rep.Notices, drift.Notice{Cluster: c.Name, Message: n})
				}
				continue
			}
			err = fmt.Errorf("%s: %w", where, err)
		}
		rep.Problems = append(rep.Problems, drift.Notice{Cluster: c.Name, Message: err.Error()})
	}
	rep.Sort()
	return rep
}

// driftPins adds to p the pull requests that fix drift (DESIGN.md
// "Drift"): a tag reference whose pods run mixed, stale or gone digests is
// pinned to the digest its tag resolves to now (tag@sha256:…), so that
// every node runs that one build after the sync. References the plan
// already moves, and images drift.restart names (their fix is a restart
// annotation, not a pin), are left alone; a cluster that cannot be read
// is a failed problem (exit 2).
func driftPins(ctx context.Context, k Kube, e *engine, scanned []scan.Ref, p *plan.Plan) *drift.Report {
	refs, err := drift.References(e.fsys, scanned)
	if err != nil {
		p.Problems = append(p.Problems, plan.Problem{Message: "drift: " + err.Error(), Failed: true})
		return nil
	}
	rep := compareClusters(ctx, k, e, refs)
	p.Drift = driftNotices(rep)
	for _, pr := range rep.Problems {
		p.Problems = append(p.Problems, plan.Problem{Message: fmt.Sprintf("drift: cluster %s: %s", pr.Cluster, pr.Message), Failed: true})
	}
	moved := map[scan.Location]bool{}
	planned := map[string]bool{}
	for _, u := range p.Updates {
		planned[u.Image] = true
		for _, c := range u.Changes {
			moved[c.Ref.Location] = true
		}
	}
	byLoc := map[scan.Location]scan.Ref{}
	for _, r := range scanned {
		byLoc[scan.Location{File: r.File, Line: r.Line, Col: r.Col}] = r
	}
	pins := map[string]*plan.Update{}    // image:tag@digest (restart: prefixed) -> its update
	pinned := map[scan.Location]string{} // reference -> the update that fixes it
	restarts := map[string]map[string][]int{}
	var order []string
	for _, f := range rep.Drift {
		if (f.Kind != drift.Mixed && f.Kind != drift.Stale && f.Kind != drift.Gone) || f.Tag == "" || f.Expected == "" || planned[f.Image] {
			continue
		}
		restart := e.cfg.Drift.RestartFor(f.Image)
		key := f.Image + ":" + f.Tag + "@" + f.Expected
		if restart {
			key = "restart:" + key
		}
		for _, r := range refsAt(byLoc, f.File, f.Line) {
			if r.Digest != "" || r.Image != f.Image || (!restart && !r.DigestField.OK) {
				continue
			}
			u := pins[key]
			switch {
			case pinned[r.Location] == key:
				// Fixed by this update already: another cluster's or
				// kind's finding adds its ground.
			case moved[r.Location] || pinned[r.Location] != "":
				continue
			default:
				if u == nil {
					// A restart is a new build of the same tag: a digest
					// update that edits the pod template, not the tag.
					u = &plan.Update{Image: f.Image, Repo: r.Repo, From: f.Tag, To: f.Tag, Type: "pin", Digest: f.Expected}
					if restart {
						u.Type = "digest"
						restarts[key] = map[string][]int{}
					}
					pins[key] = u
					order = append(order, key)
				}
				pinned[r.Location] = key
				u.Locations = append(u.Locations, r.Location)
				if restart {
					// The tag stays as written (a change that writes
					// nothing, for the body's table of locations); the
					// pod template's annotation changes.
					restarts[key][r.File] = append(restarts[key][r.File], r.Line)
					u.Changes = append(u.Changes, plan.Change{Ref: r, Tag: r.Tag})
				} else {
					u.Changes = append(u.Changes, plan.Change{Ref: r, Tag: r.Tag, Digest: f.Expected})
				}
			}
			if g := groundOf(f); !slices.Contains(u.Grounds, g) {
				u.Grounds = append(u.Grounds, g)
			}
		}
	}
	for _, key := range order {
		u := pins[key]
		if files := restarts[key]; files != nil {
			u.Files = restartEdits(files, u.Digest)
			u.Grounds = append(u.Grounds, fmt.Sprintf("drift.restart names this image: the pod template annotation %s makes the workload roll its pods, which pull %s again (imagePullPolicy: Always) and run %s.",
				drift.RestartAnnotation, u.To, imagename.ShortDigest(u.Digest)))
		} else {
			u.Grounds = append(u.Grounds, fmt.Sprintf("Pinning the tag to %s makes every node run that build after the sync.", imagename.ShortDigest(u.Digest)))
		}
		p.Updates = append(p.Updates, *u)
	}
	return rep
}

// groundOf is the sentence a pull request says of one finding it fixes.
func groundOf(f drift.Finding) string {
	switch f.Kind {
	case drift.Gone:
		return fmt.Sprintf("Drift in cluster %s: %s runs %s of %s:%s, which the registry no longer serves: a restart on a node without it fails.",
			f.Cluster, f.Workload, digests(f.Running), f.Image, f.Tag)
	case drift.Mixed:
		return fmt.Sprintf("Drift in cluster %s: the pods of %s run %d different builds of %s:%s.",
			f.Cluster, f.Workload, len(f.Running), f.Image, f.Tag)
	}
	return fmt.Sprintf("Drift in cluster %s: %s runs %s of %s:%s, not the one build the tag resolves to now (%s).",
		f.Cluster, f.Workload, digests(f.Running), f.Image, f.Tag, imagename.ShortDigest(f.Expected))
}

// restartEdits set the restart annotation in the pod template of each
// workload whose manifest holds one of the lines, per file from the last
// line up, so that an insertion never moves a line still to edit.
func restartEdits(files map[string][]int, digest string) []plan.FileEdit {
	var edits []plan.FileEdit
	for _, file := range slices.Sorted(maps.Keys(files)) {
		lines := slices.Clone(files[file])
		slices.Sort(lines)
		slices.Reverse(lines)
		edits = append(edits, plan.FileEdit{Path: file, Note: "sets the pod template annotation " + drift.RestartAnnotation + " so that the pods roll and pull again", Apply: func(old []byte) ([]byte, error) {
			out := old
			for _, l := range lines {
				var err error
				if out, err = drift.SetTemplateAnnotation(out, l, drift.RestartAnnotation, digest); err != nil {
					return nil, fmt.Errorf("%s:%d: %w", file, l, err)
				}
			}
			return out, nil
		}})
	}
	return edits
}

// refsAt are the scanned references on one line of one file.
func refsAt(byLoc map[scan.Location]scan.Ref, file string, line int) []scan.Ref {
	var out []scan.Ref
	for loc, r := range byLoc {
		if loc.File == file && loc.Line == line {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b scan.Ref) int { return a.Col - b.Col })
	return out
}

func digests(ds []string) string {
	s := make([]string, len(ds))
	for i, d := range ds {
		s[i] = imagename.ShortDigest(d)
	}
	return strings.Join(s, ", ")
}

// DriftCount is how many findings of each kind a run's drift check made
// (serve's imagebot_drift_references{kind}).
type DriftCount struct{ Mixed, Stale, Gone, Undeclared, NotRunning int }

// ByKind is c keyed by drift kind, every kind present.
func (c DriftCount) ByKind() map[drift.Kind]int {
	return map[drift.Kind]int{drift.Mixed: c.Mixed, drift.Stale: c.Stale, drift.Gone: c.Gone,
		drift.Undeclared: c.Undeclared, drift.NotRunning: c.NotRunning}
}

func countDrift(rep *drift.Report) DriftCount {
	if rep == nil {
		return DriftCount{}
	}
	n := rep.Count()
	return DriftCount{Mixed: n[drift.Mixed], Stale: n[drift.Stale], Gone: n[drift.Gone],
		Undeclared: n[drift.Undeclared], NotRunning: n[drift.NotRunning]}
}

// driftNotices are the findings as the dashboard's "Drift" section lists
// them: the kind, and a sentence without pod names (which change with
// every rollout), so that a rerun writes the same section.
func driftNotices(rep *drift.Report) []plan.Notice {
	var out []plan.Notice
	for _, f := range rep.Drift {
		where := "cluster " + f.Cluster + ", " + f.Workload.String()
		ref := f.Image
		if f.Tag != "" {
			ref += ":" + f.Tag
		}
		var detail string
		switch f.Kind {
		case drift.Mixed:
			detail = fmt.Sprintf("%s runs %d builds of %s (%s)", where, len(f.Running), ref, digests(f.Running))
		case drift.Stale:
			detail = fmt.Sprintf("%s runs %s of %s, which is %s now", where, digests(f.Running), ref, imagename.ShortDigest(f.Expected))
		case drift.Gone:
			detail = fmt.Sprintf("%s runs %s of %s, which the registry no longer serves", where, digests(f.Running), ref)
		case drift.Undeclared:
			detail = fmt.Sprintf("%s runs %s, which no file of the cluster's paths names", where, f.Image)
		case drift.NotRunning:
			detail = fmt.Sprintf("%s does not run %s", where, f.Expected)
			if len(f.Running) > 0 {
				detail += " (it runs " + strings.Join(f.Running, ", ") + ")"
			}
		}
		out = append(out, plan.Notice{File: f.File, Line: f.Line, Image: f.Image, Tag: f.Tag, Reason: string(f.Kind), Detail: detail})
	}
	return out
}
