package adopt

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/mail"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/policy"
	"github.com/imagebot/imagebot/internal/scan"
)

// ErrNothingToConvert is returned when the repository holds nothing of the
// tool init was asked to convert from.
var ErrNothingToConvert = errors.New("nothing to convert")

// FromFlux converts the repository's Flux image automation: each
// ImagePolicy becomes a policy matching its ImageRepository's image
// (semver range, numerical and alphabetical order, filterTags pattern and
// extract, the exclusion list where globs can say it, digest reflection as
// `pin: digest`). `$imagepolicy` markers on lines imagebot reads anyway need
// nothing; the others are returned as Markers. Flux updates only marked
// lines, so images without a policy are skipped, in an entry that says so.
func FromFlux(ctx context.Context, fsys fs.FS, o Options) (*Result, error) {
	var ns notes
	res, err := scan.FS(ctx, fsys, nil)
	if err != nil {
		return nil, fmt.Errorf("scan the repository: %w", err)
	}
	repos, pols, marks, autos, err := fluxObjects(ctx, fsys, res, &ns)
	if err != nil {
		return nil, err
	}
	if len(repos) == 0 && len(pols) == 0 {
		return nil, fmt.Errorf("%w: no Flux ImagePolicy or ImageRepository (%s*) in the repository; run init without --from", ErrNothingToConvert, fluxGroup)
	}
	markers := fluxMarkers(marks, pols, &ns)
	d := &draft{origin: "init --from flux", hosts: hostsOf(res.Refs)}
	for _, r := range repos {
		fluxAuth(d, r, &ns)
	}
	for _, a := range autos {
		fluxAutomationSettings(d, a, &ns)
	}
	chosen := choosePolicies(pols, &ns)
	var entries []entry
	converted := map[string]bool{}
	for _, p := range chosen {
		e, ok := convertFlux(p, &ns)
		if ok {
			entries = append(entries, e)
			converted[p.repo.image] = true
		}
	}
	scope(d, res.Refs, converted, entries)
	d.excludes(fsys, res.Refs, true)
	r, err := finish(d, ns, o, "")
	if err != nil {
		return nil, err
	}
	r.Markers, r.From, r.Handover = markers, "Flux image automation", fluxHandover(autos)
	return r, nil
}

// choosePolicies orders the ImagePolicies of each image: the one most
// markers use applies to the image everywhere, and each other one (a dev
// timestamp policy beside a stable semver one, say) follows it, scoped by
// paths to the files whose markers name it, so that it wins there. A file
// whose markers name both cannot be split by file: the first keeps it, and
// a policy left without a file of its own is noted, not converted.
func choosePolicies(pols []*fluxPolicy, ns *notes) []*fluxPolicy {
	byImage := map[string][]*fluxPolicy{}
	var images []string
	for _, p := range pols {
		if p.repo == nil {
			continue
		}
		if byImage[p.repo.image] == nil {
			images = append(images, p.repo.image)
		}
		byImage[p.repo.image] = append(byImage[p.repo.image], p)
	}
	slices.Sort(images)
	var out []*fluxPolicy
	for _, img := range images {
		ps := byImage[img]
		best := ps[0]
		for _, p := range ps[1:] {
			if p.markers > best.markers {
				best = p
			}
		}
		out = append(out, best)
		taken := slices.Clone(best.files)
		for _, p := range ps {
			if p == best {
				continue
			}
			var own []string
			for _, f := range p.files {
				if !slices.Contains(taken, f) {
					own = append(own, f)
				}
			}
			if len(own) == 0 {
				ns.add(p.file, p.line, "ImagePolicy %s also selects %s, but no file has markers of it alone (imagebot scopes a policy by file); the %d %s naming %s now follow ImagePolicy %s",
					p, img, p.markers, plural(p.markers, "line", "lines"), p, best)
				continue
			}
			slices.Sort(own)
			taken = append(taken, own...)
			p.paths = own
			out = append(out, p)
		}
	}
	return out
}

// convertFlux turns one ImagePolicy into a policy entry. A policy whose
// tag selection cannot be expressed becomes `skip: true`: proposing tags
// Flux would never pick is worse than proposing none.
func convertFlux(p *fluxPolicy, ns *notes) (entry, bool) {
	e := entry{
		comment: []string{fmt.Sprintf("From ImagePolicy %s (%s:%d).", p, p.file, p.line)},
		why:     map[string]string{},
		p:       config.Policy{Match: p.repo.image, Paths: p.paths},
	}
	if p.paths != nil {
		e.comment = append(e.comment, "Scoped to the files whose markers name it; another ImagePolicy of the image applies elsewhere.")
	}
	skip := func(line int, format string, args ...any) (entry, bool) {
		msg := fmt.Sprintf(format, args...)
		ns.add(p.file, line, "ImagePolicy %s: %s; the image is skipped until you decide", p, msg)
		e.comment = append(e.comment, wrap("Skipped: "+msg+".", 76)...)
		e.p.Skip = ptr(true)
		return e, true
	}
	pol := get(p.spec, "policy")
	var spec policy.Spec
	switch {
	case get(pol, "semver") != nil:
		spec.Versioning, spec.Range = "semver", scalar(pol, "semver", "range")
		if spec.Range == "" {
			return skip(lineAt(pol, p.spec), "semver policy without a range")
		}
	case get(pol, "numerical") != nil:
		spec.Versioning = "numeric"
		if strings.EqualFold(scalar(pol, "numerical", "order"), "desc") {
			return skip(lineAt(pol, p.spec, "numerical"), "numerical order desc picks the lowest tag, and imagebot only moves to higher versions")
		}
	case get(pol, "alphabetical") != nil:
		spec.Versioning = "alphabetical"
		if strings.EqualFold(scalar(pol, "alphabetical", "order"), "desc") {
			return skip(lineAt(pol, p.spec, "alphabetical"), "alphabetical order desc picks the lowest tag, and imagebot only moves to higher versions")
		}
	default:
		ns.add(p.file, p.line, "ImagePolicy %s has no semver, numerical or alphabetical policy; not converted", p)
		return entry{}, false
	}
	if pat := scalar(p.spec, "filterTags", "pattern"); pat != "" {
		var err error
		if ex := scalar(p.spec, "filterTags", "extract"); ex != "" {
			spec.Pattern, err = extractGroup(pat, ex)
		} else {
			spec.Pattern, err = wholeTag(pat)
		}
		if err != nil {
			return skip(lineAt(p.spec, p.spec, "filterTags"), "filterTags: %v", err)
		}
		e.why["pattern"] = "filterTags " + quoteFilter(p.spec)
	}
	spec.Ignore = fluxIgnore(p.repo, spec.Versioning, ns)
	switch scalar(p.spec, "digestReflectionPolicy") {
	case "Always":
		spec.Pin = "digest"
		e.why["pin"] = "digestReflectionPolicy: Always"
	case "IfNotPresent":
		spec.Pin = "digest"
		e.why["pin"] = "digestReflectionPolicy: IfNotPresent (imagebot also follows a re-pushed tag's digest)"
	}
	if _, err := policy.New(spec); err != nil {
		return skip(p.line, "%v", err)
	}
	e.p.Versioning = ptr(spec.Versioning)
	if spec.Range != "" {
		e.p.Range = ptr(spec.Range)
	}
	if spec.Pattern != "" {
		e.p.Pattern = ptr(spec.Pattern)
	}
	if len(spec.Ignore) > 0 {
		e.p.Ignore = spec.Ignore
		e.why["ignore"] = "ImageRepository " + qualified(p.repo.ns, p.repo.name) + " exclusionList"
	}
	if spec.Pin != "" {
		e.p.Pin = ptr(spec.Pin)
	}
	return e, true
}

func quoteFilter(spec *yaml.Node) string {
	s := fmt.Sprintf("%q", scalar(spec, "filterTags", "pattern"))
	if ex := scalar(spec, "filterTags", "extract"); ex != "" {
		s += " extract " + fmt.Sprintf("%q", ex)
	}
	return s
}

// fluxIgnore converts an ImageRepository's exclusionList into ignore globs.
// Without a list Flux excludes cosign's `.sig` tags, which only the
// alphabetical order could ever pick.
func fluxIgnore(r *fluxRepo, versioning string, ns *notes) []string {
	list := get(r.spec, "exclusionList")
	if list == nil {
		if versioning == "alphabetical" {
			return []string{"*.sig"}
		}
		return nil
	}
	var globs []string
	for _, item := range list.Content {
		gs, err := regexGlobs(item.Value)
		if err != nil {
			ns.add(r.file, item.Line, "ImageRepository %s: exclusionList entry %q is %v; imagebot may propose tags it excludes", qualified(r.ns, r.name), item.Value, errNotGlob)
			continue
		}
		globs = append(globs, gs...)
	}
	return globs
}

// fluxAuth notes what an ImageRepository says about reaching its registry,
// which lives in the cluster and not in git.
func fluxAuth(d *draft, r *fluxRepo, ns *notes) {
	var said []string
	for _, k := range []string{"secretRef", "certSecretRef", "proxySecretRef", "serviceAccountName", "provider", "insecure"} {
		if v := get(r.spec, k); v != nil && !(k == "provider" && v.Value == "generic") && !(k == "insecure" && v.Value == "false") {
			said = append(said, k)
		}
	}
	if len(said) == 0 {
		return
	}
	h := find(d.hosts, strings.SplitN(r.image, "/", 2)[0])
	if h != nil {
		h.authed = true
	}
	ns.add(r.file, r.line, "ImageRepository %s reaches its registry with %s, which live in the cluster: give imagebot credentials (the registries stub in .imagebot.yaml, or docker login)",
		qualified(r.ns, r.name), strings.Join(said, ", "))
}

// scope skips the images no converted policy covers, as Flux never
// touched a line without a marker; the entry says how to widen it.
func scope(d *draft, refs []scan.Ref, converted map[string]bool, entries []entry) {
	var others []string
	for _, r := range refs {
		if r.Image != "" && !converted[r.Image] && !slices.Contains(others, r.Image) {
			others = append(others, r.Image)
		}
	}
	slices.Sort(others)
	if len(others) > 0 {
		comment := wrap(fmt.Sprintf("The old tool updated only the images it had rules for; imagebot finds every image. To keep the old scope, these %d are skipped: %s. Delete this entry to let imagebot update them too.",
			len(others), strings.Join(others, ", ")), 76)
		d.add(entry{comment: comment, p: config.Policy{Match: "**", Skip: ptr(true)}})
		for i := range entries {
			if entries[i].p.Skip == nil {
				entries[i].p.Skip = ptr(false)
			}
		}
	}
	for _, e := range entries {
		d.add(e)
	}
}

// fluxAutomationSettings turns an ImageUpdateAutomation's commit settings
// into the nearest imagebot ones, and says what changes: Flux committed to
// a branch, imagebot proposes each update as a pull request.
func fluxAutomationSettings(d *draft, a fluxAutomation, ns *notes) {
	git := get(a.spec, "git")
	name, email := scalar(git, "commit", "author", "name"), scalar(git, "commit", "author", "email")
	if addr, err := mail.ParseAddress(email); email != "" && (err != nil || addr.Address != email) {
		ns.add(a.file, a.line, "ImageUpdateAutomation %s: commit author email %q is not a bare address; not converted", a.name, email)
		email = ""
	}
	if email != "" {
		// imagebot tells its own commits (and so its branches) from
		// others' by git.author: Flux's address there would make every
		// commit Flux's automation ever made look like imagebot's.
		ns.add(a.file, a.line, "ImageUpdateAutomation %s commits as %s <%s>: not copied into git.author, which is how imagebot recognises its own commits; imagebot commits under its own name", a.name, name, email)
	}
	if tmpl := scalar(git, "commit", "messageTemplate"); tmpl != "" {
		line := lineAt(get(git, "commit"), a.spec, "messageTemplate")
		if strings.Contains(tmpl, "{{") {
			ns.add(a.file, line, "ImageUpdateAutomation %s: its commit messageTemplate uses Flux's template data, which imagebot does not have; git.commitMessage may use {{.Image}}, {{.From}}, {{.To}}, {{.Type}} and {{.Digest}}", a.name)
		} else if d.commitMessage == "" {
			d.commitMessage = strings.TrimSpace(tmpl)
		}
	}
	branch := scalar(git, "push", "branch")
	if branch == "" {
		branch = scalar(git, "checkout", "ref", "branch")
	}
	where := "the branch it checked out"
	if branch != "" {
		where = branch
	}
	ns.add(a.file, a.line, "ImageUpdateAutomation %s pushed its commits to %s; imagebot instead opens a pull request per update against the default branch, and the update lands when it is merged. Suspend the automation once imagebot runs, or both will update the same lines", a.name, where)
}
