package rollout

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"time"

	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/prepull"
	"github.com/imagebot/imagebot/internal/timefmt"
)

// Phases of an update of an image to pre-pull.
const (
	phasePrepull = iota // not in the DaemonSet yet: the pre-pull PR adds it
	phaseLead           // in the DaemonSet, for less than the lead
	phaseReady          // pre-pulled long enough: the rollout PR opens
)

// staged is an update of a pre-pulled image and where it stands.
type staged struct {
	i     int // index in the plan's updates
	entry prepull.Entry
	phase int
	since Commit // when the entry reached the default branch
	known bool   // since was found (else: before since.Time)
	// waits: pre-pulled long enough, but another update of its PR is not.
	waits bool
}

// prepull stages the plan's updates of images to pre-pull: an update whose
// image is not in the DaemonSet becomes its pre-pull; one whose image has
// been there for less than the lead waits, with a notice; one pre-pulled
// long enough rolls out, and removes its image from the DaemonSet.
func (a *applier) prepull(ctx context.Context) {
	pp := a.cfg.Prepull
	var stages []*staged
	for i, u := range a.p.Updates {
		if (u.Kind == "" || u.Kind == plan.KindPromotion) && pp.Matches(u.Image) && len(u.Changes) > 0 {
			stages = append(stages, &staged{i: i, entry: prepull.Entry{Image: u.Image, Tag: u.To, Digest: u.Digest}})
			// The pre-pull stages the newest version only: the version
			// within the major (separateMajorMinor) is not pre-pulled, so
			// it must not roll out on its own.
			a.p.Updates[i].Minor = nil
		}
	}
	if len(stages) == 0 {
		return
	}
	src, err := fs.ReadFile(a.o.Tip, pp.Manifest)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		a.hold(stages, fmt.Sprintf("the pre-pull DaemonSet %s cannot be read: %v", pp.Manifest, err))
		a.remove(stages)
		return
	}
	entries, err := prepull.Entries(src)
	if err != nil {
		a.p.Problems = append(a.p.Problems, plan.Problem{File: pp.Manifest, Line: 1, Message: fmt.Sprintf(
			"%v: imagebot owns prepull.manifest and rewrites it; move this content to another file, or name another file in prepull.manifest", err)})
		a.hold(stages, fmt.Sprintf("the pre-pull DaemonSet %s is not imagebot's (see the problem)", pp.Manifest))
		a.remove(stages)
		return
	}
	a.date(ctx, stages, entries)
	lead := time.Duration(pp.Lead)
	for _, s := range stages {
		switch {
		case !slices.Contains(entries, s.entry):
			s.phase = phasePrepull
		case a.o.Now.Sub(s.since.Time) < lead:
			s.phase = phaseLead
		default:
			s.phase = phaseReady
		}
	}
	a.together(stages)
	a.stage(stages, lead)
}

// date finds, for the stages whose image is in the DaemonSet, the commit
// that added it: walking back, the first commit before which it was not.
func (a *applier) date(ctx context.Context, stages []*staged, entries []prepull.Entry) {
	path := a.cfg.Prepull.Manifest
	var todo []*staged
	for _, s := range stages {
		if slices.Contains(entries, s.entry) {
			todo = append(todo, s)
		}
	}
	if len(todo) == 0 {
		return
	}
	err := a.o.History.Changes(ctx, func(f string) bool { return f == path }, func(ch Change) bool {
		before, _ := prepull.Entries(ch.Before[path])
		left := false
		for _, s := range todo {
			if !s.known && !slices.Contains(before, s.entry) {
				s.since, s.known = ch.Commit, true
			}
			left = left || !s.known
		}
		return left
	})
	var trunc *TruncatedError
	if errors.As(err, &trunc) {
		for _, s := range todo {
			if !s.known {
				s.since = trunc.Oldest
			}
		}
		return
	}
	if err != nil {
		// Unknown is old: the pre-pull was merged; what is unknown is only
		// for how long, and a rollout that waits forever helps nobody.
		a.o.Logger.Warn("pre-pull history unreadable; rolling out", "err", err)
	}
}

// together keeps the updates that share a PR (a group's, a group's
// promotion) in step: none rolls out before all are pre-pulled.
func (a *applier) together(stages []*staged) {
	slowest := map[string]int{}
	key := func(s *staged) string {
		u := a.p.Updates[s.i]
		if u.Group == "" {
			return ""
		}
		return u.Kind + "\x00" + u.Environment + "\x00" + u.Group
	}
	for _, s := range stages {
		if k := key(s); k != "" {
			if p, ok := slowest[k]; !ok || s.phase < p {
				slowest[k] = s.phase
			}
		}
	}
	for _, s := range stages {
		if k := key(s); k != "" && s.phase == phaseReady && slowest[k] < phaseReady {
			s.phase, s.waits = phaseLead, true
		}
	}
}

// stage rewrites the plan's updates for their phases.
func (a *applier) stage(stages []*staged, lead time.Duration) {
	pp := a.cfg.Prepull
	spec := prepull.Spec{Namespace: pp.Namespace, NodeSelector: pp.NodeSelector, Helper: a.o.Helper}
	// An image's entries still needed by another update stay when one of
	// its updates rolls out.
	needed := map[prepull.Entry]bool{}
	for _, s := range stages {
		if s.phase != phaseReady {
			needed[s.entry] = true
		}
	}
	var drop []*staged
	var add []plan.Update
	for _, s := range stages {
		u := &a.p.Updates[s.i]
		switch s.phase {
		case phasePrepull:
			e := s.entry
			add = append(add, plan.Update{
				Image: u.Image, Repo: u.Repo, From: u.From, To: u.To, Type: u.Type, Digest: u.Digest,
				Kind: plan.KindPrepull, Environment: u.Environment, Locations: u.Locations,
				Grounds: []string{fmt.Sprintf("Each rollout pull request opens once its image has been in the DaemonSet on the default branch for %s (prepull.lead).", span(lead))},
				Files:   []plan.FileEdit{{Path: pp.Manifest, Apply: edit(spec, func(es []prepull.Entry) []prepull.Entry { return append(es, e) })}},
			})
			drop = append(drop, s)
		case phaseLead:
			a.hold([]*staged{s}, a.leadNote(s, lead))
			drop = append(drop, s)
		case phaseReady:
			img := s.entry.Image
			u.Grounds = append(slices.Clip(u.Grounds), fmt.Sprintf("`%s` has been pre-pulled on the nodes since %s (commit `%s`), longer than the lead of %s; this also removes it from the pre-pull DaemonSet.",
				s.entry.Tag, timefmt.Stamp(s.since.Time), s.since.Short(), span(lead)))
			u.Files = append(u.Files, plan.FileEdit{Path: pp.Manifest, Apply: edit(spec, func(es []prepull.Entry) []prepull.Entry {
				return slices.DeleteFunc(es, func(x prepull.Entry) bool { return x.Image == img && !needed[x] })
			})})
		}
	}
	a.remove(drop)
	a.p.Updates = append(a.p.Updates, add...)
}

// leadNote says since when an image is pre-pulled and when it rolls out.
func (a *applier) leadNote(s *staged, lead time.Duration) string {
	if s.waits {
		return fmt.Sprintf("pre-pulled since %s (commit %s); the rollout waits until the other images of its pull request are pre-pulled too", timefmt.Stamp(s.since.Time), s.since.Short())
	}
	return fmt.Sprintf("pre-pulling %s since %s (commit %s), rollout after %s", s.entry.Tag, timefmt.Stamp(s.since.Time), s.since.Short(), timefmt.Stamp(s.since.Time.Add(lead)))
}

// hold leaves a notice on each reference of the stages' updates.
func (a *applier) hold(stages []*staged, why string) {
	for _, s := range stages {
		for _, c := range a.p.Updates[s.i].Changes {
			a.p.Notices = append(a.p.Notices, plan.Notice{File: c.Ref.File, Line: c.Ref.Line, Image: c.Ref.Image, Tag: c.Ref.Tag, Reason: plan.ReasonPrepulling, Detail: why})
		}
	}
}

// remove takes the stages' updates out of the plan.
func (a *applier) remove(stages []*staged) {
	drop := map[int]bool{}
	for _, s := range stages {
		drop[s.i] = true
	}
	var keep []plan.Update
	for i, u := range a.p.Updates {
		if !drop[i] {
			keep = append(keep, u)
		}
	}
	a.p.Updates = keep
}

// edit is a FileEdit of the DaemonSet that changes its entries.
func edit(spec prepull.Spec, change func([]prepull.Entry) []prepull.Entry) func([]byte) ([]byte, error) {
	return func(old []byte) ([]byte, error) {
		es, err := prepull.Entries(old)
		if err != nil {
			return nil, err
		}
		return prepull.Render(old, spec, change(es))
	}
}
