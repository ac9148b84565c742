package drift

import (
	"context"
	"fmt"
	"slices"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/imagebot/imagebot/internal/imagename"
)

// Input is one cluster to compare: the references of the paths it runs,
// its running pods, and the registry.
type Input struct {
	Cluster  string
	Refs     []Reference
	Pods     []Pod
	Registry Registry
	// Namespaces the pods were listed in; nil for every namespace. A
	// reference whose manifest names another namespace is not this
	// cluster's to check.
	Namespaces []string
	// Unread are namespaces that could not be listed (forbidden): their
	// references are not checked, since nothing is known of what runs
	// there.
	Unread []string
}

// instance is one container of one pod, parsed.
type instance struct {
	pod    string // namespace/name
	wl     Workload
	spec   specImage
	digest string // "" when the image ID names none
}

// Compare computes the drift of one cluster.
func Compare(ctx context.Context, in Input) Report {
	c := &comparison{in: in, digests: map[string]answer{}, exists: map[string]answer{}}
	c.run(ctx)
	c.rep.Sort()
	return c.rep
}

type answer struct {
	digest string
	ok     bool
	err    error
}

type comparison struct {
	in      Input
	rep     Report
	digests map[string]answer // image:tag -> digest now
	exists  map[string]answer // image@digest -> served
}

func (c *comparison) notice(file string, line int, format string, args ...any) {
	c.rep.Notices = append(c.rep.Notices, Notice{Cluster: c.in.Cluster, File: file, Line: line, Message: fmt.Sprintf(format, args...)})
}

func (c *comparison) run(ctx context.Context) {
	refs := c.inScope()
	instances := c.instances()
	// For each reference: the instances that run it, and the instances of
	// its workload (or, without one, of any workload) that run its
	// repository in another version.
	runs := make([][]instance, len(refs))
	others := make([][]instance, len(refs))
	type key struct {
		wl    Workload
		image string
	}
	undeclared := map[key][]instance{}
	inWorkload := map[Workload][]instance{}
	for _, it := range instances {
		inWorkload[it.wl] = append(inWorkload[it.wl], it)
		cands := candidates(refs, it)
		if len(cands) == 0 {
			k := key{it.wl, it.spec.image}
			undeclared[k] = append(undeclared[k], it)
			continue
		}
		matched := false
		for _, i := range cands {
			if it.spec.runs(refs[i]) {
				runs[i] = append(runs[i], it)
				matched = true
			}
		}
		if !matched {
			for _, i := range cands {
				others[i] = append(others[i], it)
			}
		}
	}
	for i, r := range refs {
		if len(runs[i]) == 0 {
			instead := others[i]
			if len(instead) == 0 && r.Workload.Name != "" {
				instead = inWorkload[matching(r.Workload, inWorkload)]
			}
			c.notRunning(r, instead)
			continue
		}
		for _, group := range byWorkload(runs[i]) {
			c.check(ctx, r, group)
		}
	}
	for k, its := range undeclared {
		f := c.finding(Undeclared, Reference{Image: k.image}, k.wl, its)
		c.rep.Drift = append(c.rep.Drift, f)
	}
}

// inScope is the references a cluster can be checked against: not those
// whose manifest names a namespace that was not listed, or could not be.
func (c *comparison) inScope() []Reference {
	var refs []Reference
	for _, r := range c.in.Refs {
		ns := r.Workload.Namespace
		if ns != "" && (c.in.Namespaces != nil && !slices.Contains(c.in.Namespaces, ns) || slices.Contains(c.in.Unread, ns)) {
			continue
		}
		refs = append(refs, r)
	}
	return refs
}

// instances parses the pods' containers; one whose spec image does not
// parse is a notice and is left out.
func (c *comparison) instances() []instance {
	var out []instance
	for _, p := range c.in.Pods {
		pod := p.Namespace + "/" + p.Name
		for _, ctr := range p.Containers {
			spec, err := parseSpec(ctr.Image)
			if err != nil {
				c.notice("", 0, "pod %s container %s: image %.80q: %v", pod, ctr.Name, ctr.Image, err)
				continue
			}
			d, why := runningDigest(ctr.ImageID)
			if why != "" {
				c.notice("", 0, "pod %s container %s %s: its digest is not compared", pod, ctr.Name, why)
			}
			out = append(out, instance{pod: pod, wl: p.Workload, spec: spec, digest: d})
		}
	}
	return out
}

// candidates are the references that may describe a running container:
// those of its repository that stand in its workload's manifest, or,
// when none does, those of its repository that stand in no manifest of a
// workload (a kustomization's images, Helm values).
func candidates(refs []Reference, it instance) []int {
	var exact, loose []int
	for i, r := range refs {
		if r.Image != it.spec.image {
			continue
		}
		switch w := r.Workload; {
		case w.Name == "":
			loose = append(loose, i)
		case w.Kind == it.wl.Kind && w.Name == it.wl.Name && (w.Namespace == "" || w.Namespace == it.wl.Namespace):
			exact = append(exact, i)
		}
	}
	if len(exact) > 0 {
		return exact
	}
	return loose
}

// matching is the running workload that w, a manifest's, describes.
func matching(w Workload, running map[Workload][]instance) Workload {
	for r := range running {
		if r.Kind == w.Kind && r.Name == w.Name && (w.Namespace == "" || w.Namespace == r.Namespace) {
			return r
		}
	}
	return Workload{}
}

// byWorkload splits instances by workload, in a stable order.
func byWorkload(its []instance) [][]instance {
	var groups [][]instance
	idx := map[Workload]int{}
	for _, it := range its {
		i, ok := idx[it.wl]
		if !ok {
			i = len(groups)
			idx[it.wl] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], it)
	}
	return groups
}

// notRunning reports a reference nothing runs. Without a workload in its
// manifest only a repository that runs in another version says it is
// not synced; one that runs nowhere may be a disabled component, so that
// is a notice.
func (c *comparison) notRunning(r Reference, others []instance) {
	if r.Workload.Name == "" && len(others) == 0 {
		c.notice(r.File, r.Line, "%s runs nowhere in the cluster (the file names no workload to expect it in)", r.written())
		return
	}
	if r.Workload.Name != "" && !r.Workload.continuous() && len(others) == 0 {
		return
	}
	f := c.finding(NotRunning, r, r.Workload, others)
	f.Running = nil
	for _, it := range others {
		if s := it.spec.written(); !slices.Contains(f.Running, s) {
			f.Running = append(f.Running, s)
		}
	}
	f.Expected = r.written()
	c.rep.Drift = append(c.rep.Drift, f)
}

// check compares the digests one workload runs for a reference with each
// other and with the registry.
func (c *comparison) check(ctx context.Context, r Reference, its []instance) {
	wl := its[0].wl
	var known []instance
	for _, it := range its {
		if it.digest != "" {
			known = append(known, it)
		}
	}
	if len(known) == 0 {
		return
	}
	if distinct(known) > 1 {
		f := c.finding(Mixed, r, wl, known)
		f.Expected, _ = c.expected(ctx, r)
		c.rep.Drift = append(c.rep.Drift, f)
	}
	var gone, stale []instance
	expected, ok := c.expected(ctx, r)
	for _, it := range known {
		served, err := c.served(ctx, r.Repo, it.digest)
		switch {
		case err != nil:
			c.notice(r.File, r.Line, "%s@%s: %v", r.Image, imagename.ShortDigest(it.digest), err)
		case !served:
			gone = append(gone, it)
		case ok && it.digest != expected:
			stale = append(stale, it)
		}
	}
	if len(gone) > 0 {
		f := c.finding(Gone, r, wl, gone)
		f.Expected = expected
		c.rep.Drift = append(c.rep.Drift, f)
	}
	if len(stale) > 0 {
		f := c.finding(Stale, r, wl, stale)
		f.Expected = expected
		c.rep.Drift = append(c.rep.Drift, f)
	}
}

// expected is the digest a reference pins, or the one its tag resolves to
// at the registry now; ok is false (and a notice said why) when the
// registry could not tell.
func (c *comparison) expected(ctx context.Context, r Reference) (string, bool) {
	if r.Digest != "" {
		return r.Digest, true
	}
	tag := r.Tag
	if tag == "" {
		tag = "latest"
	}
	key := r.Image + ":" + tag
	a, seen := c.digests[key]
	if !seen {
		a.digest, a.err = c.in.Registry.Digest(ctx, r.Repo.Tag(tag))
		a.ok = a.err == nil
		c.digests[key] = a
		if a.err != nil {
			c.notice(r.File, r.Line, "%s: what the tag resolves to now is unknown: %v", key, a.err)
		}
	}
	return a.digest, a.ok
}

func (c *comparison) served(ctx context.Context, repo name.Repository, digest string) (bool, error) {
	key := repo.Name() + "@" + digest
	a, seen := c.exists[key]
	if !seen {
		a.ok, a.err = c.in.Registry.Exists(ctx, repo.Digest(digest))
		c.exists[key] = a
	}
	return a.ok, a.err
}

// finding is a finding of kind for r in wl with the pods of its.
func (c *comparison) finding(kind Kind, r Reference, wl Workload, its []instance) Finding {
	f := Finding{Kind: kind, File: r.File, Line: r.Line, Image: r.Image, Cluster: c.in.Cluster, Workload: wl, Tag: r.Tag,
		Pods: []PodDigest{}, Running: []string{}}
	for _, it := range its {
		f.Pods = append(f.Pods, PodDigest{Name: it.pod, Running: it.digest})
		if it.digest != "" && !slices.Contains(f.Running, it.digest) {
			f.Running = append(f.Running, it.digest)
		}
	}
	slices.SortFunc(f.Pods, func(a, b PodDigest) int {
		if a.Name < b.Name {
			return -1
		}
		if a.Name > b.Name {
			return 1
		}
		return 0
	})
	slices.Sort(f.Running)
	return f
}

func distinct(its []instance) int {
	seen := map[string]bool{}
	for _, it := range its {
		seen[it.digest] = true
	}
	return len(seen)
}

// written is the spec image in imagebot's spelling.
func (s specImage) written() string {
	out := s.image
	if s.tag != "" {
		out += ":" + s.tag
	}
	if s.digest != "" {
		out += "@" + s.digest
	}
	return out
}
