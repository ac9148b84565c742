package adopt

import (
	"context"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/scan"
)

// FromRenovate converts the repository's Renovate config: the packageRules
// that apply to docker images (matchDatasources docker, a docker manager,
// or no datasource at all) and the global settings imagebot has an
// equivalent for. Rules apply in order and later ones win, in both tools.
func FromRenovate(ctx context.Context, fsys fs.FS, o Options) (*Result, error) {
	file, root, err := renovateConfig(fsys)
	if err != nil {
		return nil, err
	}
	res, err := scan.FS(ctx, fsys, nil)
	if err != nil {
		return nil, fmt.Errorf("scan the repository: %w", err)
	}
	c := &renovate{file: file, refs: slices.Clone(res.Refs), all: append(slices.Clone(res.Refs), res.Charts...), d: &draft{origin: "init --from renovate", hosts: hostsOf(res.Refs)}}
	pr := &presetReader{fsys: fsys, repo: o.Repository, ns: &c.ns, file: file}
	root = pr.expand(root, 0, []string{file})
	c.global(root)
	c.d.excludes(fsys, res.Refs, root.get("ignorePaths") == nil)
	// Rules read the tags of the images the config leaves in scope.
	c.refs = slices.DeleteFunc(c.refs, func(r scan.Ref) bool { return excludedBy(c.d.exclude, r.File) })
	if rules := root.get("packageRules"); rules != nil {
		for i, r := range rules.vals {
			c.rule(i, r)
		}
	}
	if c.otherRules > 0 {
		c.ns.add(file, rules(root).line, "%d packageRules are for other datasources or managers than docker; not converted", c.otherRules)
	}
	r, err := finish(c.d, c.ns, o, c.cron)
	if err != nil {
		return nil, err
	}
	r.From, r.Handover = file, renovateHandover(file)
	return r, nil
}

func rules(root *jnode) *jnode { return root.get("packageRules") }

// renovate is one conversion in progress.
type renovate struct {
	file string
	refs []scan.Ref // the images of the repository
	// all are its images and charts: what a converted name is checked
	// against.
	all        []scan.Ref
	d          *draft
	ns         notes
	cron       string // the schedule for the workflow, when it is cron
	otherRules int
	// forImages is set while a rule with matchDatasources docker is
	// converted: its names are images, whether the repository uses them
	// yet or not.
	forImages  bool
	rulesNotes int  // the notes there were before the rule being converted
	pinned     bool // a converted rule pins digests
	globalLbl  bool // the config sets labels for every pull request
	globalRev  bool
	// dockerRegex is set when a custom regex manager looks up images
	// (datasourceTemplate docker), so that a rule scoped to regex
	// managers is about images.
	dockerRegex bool
}

func (c *renovate) note(n *jnode, format string, args ...any) {
	file, line := c.file, 0
	if n != nil {
		file, line = n.fileOr(c.file), n.line
	}
	c.ns.add(file, line, format, args...)
}

// handledGlobal are the top-level keys converted (or deliberately
// ignored as not about what imagebot does) without a note.
var handledGlobal = map[string]bool{
	"$schema": true, "packageRules": true, "extends": true, "enabled": true,
	"labels": true, "addLabels": true, "reviewers": true, "additionalReviewers": true,
	"schedule": true, "timezone": true, "ignorePaths": true, "ignoreDeps": true,
	"hostRules": true, "description": true,
	"prConcurrentLimit": true, "prHourlyLimit": true, "separateMajorMinor": true, "registryAliases": true, "dependencyDashboard": true,
	"dependencyDashboardApproval": true, "dependencyDashboardTitle": true, "onboarding": true,
	"customManagers": true, "regexManagers": true,
}

func (c *renovate) global(root *jnode) {
	all := &jnode{kind: '{', line: root.line}
	for i, k := range root.keys {
		v := root.vals[i]
		switch {
		case handledGlobal[k]:
		case ruleActions[k]:
			all.keys, all.vals = append(all.keys, k), append(all.vals, v)
		default:
			c.note(v, "%s: not converted (%s)", k, whyNot(k))
		}
	}
	if root.get("enabled").isFalse() {
		c.d.add(entry{comment: []string{"Renovate is disabled (enabled: false)."}, p: config.Policy{Match: "**", Skip: ptr(true)}})
	}
	c.extends(root.get("extends"))
	c.d.labels = append(c.strs(root, "labels"), c.strs(root, "addLabels")...)
	c.d.reviewers = append(c.reviewers(root, "reviewers"), c.reviewers(root, "additionalReviewers")...)
	c.globalLbl, c.globalRev = len(c.d.labels) > 0, len(c.d.reviewers) > 0
	for _, name := range c.strs(root, "ignoreDeps") {
		if g, ok := c.glob(root.get("ignoreDeps"), name); ok {
			c.d.add(entry{comment: []string{"ignoreDeps"}, p: config.Policy{Match: g, Skip: ptr(true)}})
		}
	}
	c.ignorePaths(root)
	c.limits(root)
	c.registryAliases(root.get("registryAliases"))
	c.dockerRegex = dockerRegexManagers(root)
	c.schedule(root.get("schedule"), root.get("timezone"))
	c.hostRules(root.get("hostRules"))
	c.regexManagerNotes(root)
	if len(all.keys) > 0 {
		c.rulesNotes = len(c.ns)
		c.convertRule("the top level", all, []string{"**"}, nil, nil)
	}
}

// limits converts the keys of the dashboard and the limits. Renovate's 0
// is "no limit", as imagebot's; prHourlyLimit counts an hour in both.
func (c *renovate) limits(root *jnode) {
	c.d.why = map[string]string{}
	for _, l := range []struct {
		key, to string
		dst     **int
	}{{"prConcurrentLimit", "maxOpen", &c.d.maxOpen}, {"prHourlyLimit", "perHour", &c.d.perHour}} {
		v := root.get(l.key)
		if v == nil {
			continue
		}
		n, err := strconv.Atoi(v.str)
		if v.kind != '0' || err != nil || n < 0 {
			c.note(v, "%s: want a whole number; not converted", l.key)
			continue
		}
		*l.dst = &n
		c.d.why[l.to] = fmt.Sprintf("%s: %d", l.key, n)
	}
	switch v := root.get("separateMajorMinor"); {
	case v.isFalse():
		c.d.separateMajorMinor = ptr(false)
		c.d.why["separateMajorMinor"] = "separateMajorMinor: false"
	case v != nil && !v.isTrue():
		c.note(v, "separateMajorMinor: want true or false; not converted")
	}
	for key, dst := range map[string]**bool{"dependencyDashboard": &c.d.dashboard, "onboarding": &c.d.onboarding} {
		if v := root.get(key); v.isTrue() || v.isFalse() {
			*dst = ptr(v.isTrue())
		}
	}
	if v := root.get("dependencyDashboardTitle"); v != nil && v.kind == '"' && strings.TrimSpace(v.str) != "" {
		c.d.dashboardTitle = v.str
	}
	if root.get("dependencyDashboardApproval").isTrue() {
		c.d.approval = []string{config.ApprovalAll}
		c.d.why["approval"] = "dependencyDashboardApproval: true"
	}
}

// dockerRegexManagers reports whether a custom regex manager of the config
// looks up docker images.
func dockerRegexManagers(root *jnode) bool {
	for _, key := range []string{"customManagers", "regexManagers"} {
		ms := root.get(key)
		if ms == nil {
			continue
		}
		for _, m := range ms.vals {
			if ds := m.get("datasourceTemplate"); ds != nil && ds.str == "docker" {
				return true
			}
		}
	}
	return false
}

// regexManagerNotes says what became of the custom regex managers: those
// for docker images are not converted (imagebot reads references itself),
// the others are for things that are not images.
func (c *renovate) regexManagerNotes(root *jnode) {
	for _, key := range []string{"customManagers", "regexManagers"} {
		ms := root.get(key)
		if ms == nil {
			continue
		}
		var other []string
		for i, m := range ms.vals {
			ds := m.get("datasourceTemplate")
			if ds != nil && ds.str == "docker" {
				c.note(m, "%s[%d]: a regex manager for docker images: not converted; imagebot finds image references in YAML itself: check that `imagebot plan` lists the ones this manager found", key, i)
				continue
			}
			if ds == nil {
				c.note(m, "%s[%d]: a regex manager whose datasource its matchStrings capture: not converted; if it finds docker images, check that `imagebot plan` lists them", key, i)
				continue
			}
			if !slices.Contains(other, ds.str) {
				other = append(other, ds.str)
			}
		}
		if len(other) > 0 {
			c.note(ms, "%s: the regex managers for %s are not about images; not converted", key, strings.Join(other, ", "))
		}
	}
}

// whyNot says why a Renovate setting has no imagebot equivalent.
func whyNot(key string) string {
	switch key {
	case "branchConcurrentLimit":
		return "imagebot limits pull requests, not branches: see pullRequests.maxOpen"
	case "separateMinorPatch", "separateMultipleMajor":
		return "imagebot proposes the newest version within the current major and the newest major (separateMajorMinor); narrow them with allow"
	case "branchPrefix", "commitMessage", "commitMessagePrefix", "semanticCommits", "gitAuthor":
		return "see git.branchPrefix, git.commitMessage and git.author"
	case "draftPR":
		return "see pullRequests.draft"
	case "rebaseWhen", "platformAutomerge", "automergeType", "automergeStrategy":
		return "imagebot rebases conflicted pull requests and uses GitHub's auto-merge"
	case "configMigration":
		return "imagebot's config has no migrations"
	case "enabledManagers", "kubernetes", "helm-values", "kustomize", "docker-compose", "flux", "argocd", "customManagers", "regexManagers":
		return "imagebot finds images in every YAML file; use paths/exclude or `# imagebot:` markers"
	}
	return "no imagebot equivalent"
}

// presets maps the docker presets that have an imagebot equivalent.
var presets = map[string]config.Policy{
	"docker:pinDigests":  {Match: "**", Pin: ptr("digest")},
	"docker:disable":     {Match: "**", Skip: ptr(true)},
	":automergeDigest":   {Match: "**", Automerge: []string{"digest"}},
	":automergePatch":    {Match: "**", Automerge: []string{"patch", "build"}},
	":automergeMinor":    {Match: "**", Automerge: []string{"minor", "patch", "build"}},
	":automergeAll":      {Match: "**", Automerge: allTypes},
	":automergeDisabled": {Match: "**", Automerge: []string{}},
}

var labelPreset = regexp.MustCompile(`^:labels?\((.*)\)$`)

func (c *renovate) extends(n *jnode) {
	list, _ := n.list()
	var unknown []string
	for _, p := range list {
		if pol, ok := presets[p]; ok {
			c.pinned = c.pinned || pol.Pin != nil
			c.d.add(entry{comment: []string{"extends " + p}, p: pol})
			continue
		}
		if repoPreset.MatchString(p) {
			continue // named when it was not followed
		}
		if m := labelPreset.FindStringSubmatch(p); m != nil {
			for _, l := range strings.Split(m[1], ",") {
				c.d.labels = append(c.d.labels, strings.TrimSpace(l))
			}
			continue
		}
		unknown = append(unknown, p)
	}
	if len(unknown) > 0 {
		c.note(n, "extends %s: presets are not expanded; copy the docker rules they hold into packageRules and run init again, or write them as policies (config:best-practices pins digests: pin: digest)", strings.Join(unknown, ", "))
	}
}

// strs reads a list of strings, noting anything else.
func (c *renovate) strs(n *jnode, key string) []string {
	v := n.get(key)
	if v == nil {
		return nil
	}
	out, ok := v.list()
	if !ok {
		c.note(v, "%s: want a list of strings; not converted", key)
	}
	return out
}

// reviewers reads Renovate reviewers: users and "org/team" stay,
// "@user" loses its @, and "team:slug" needs the owner imagebot names
// teams by.
func (c *renovate) reviewers(n *jnode, key string) []string {
	var out []string
	for _, r := range c.strs(n, key) {
		r = strings.TrimPrefix(r, "@")
		if slug, ok := strings.CutPrefix(r, "team:"); ok {
			c.note(n.get(key), "%s %q: write the team as OWNER/%s in pullRequests.reviewers", key, r, slug)
			continue
		}
		out = append(out, r)
	}
	return out
}

var cronRE = regexp.MustCompile(`^\S+ \S+ \S+ \S+ \S+$`)

// schedule converts a cron schedule. Renovate's is a window (any minute in
// which it may run), so a `*` minute becomes 0: once at the start of each
// hour of the window. Text schedules ("before 6am on monday") are noted.
func (c *renovate) schedule(n, tz *jnode) {
	list, _ := n.list()
	if len(list) == 0 || (len(list) == 1 && list[0] == "at any time") {
		return
	}
	if len(list) > 1 || !cronRE.MatchString(list[0]) {
		c.note(n, "schedule %q: only a single cron expression converts; set schedule (for serve) and the CI schedule's cron by hand", strings.Join(list, `", "`))
		return
	}
	f := strings.Fields(list[0])
	if f[0] == "*" {
		f[0] = "0"
	}
	c.cron = strings.Join(f, " ")
	c.d.schedule = c.cron
	c.d.scheduleWhy = "Renovate schedule " + strconv.Quote(list[0])
	if tz != nil && tz.str != "" {
		if _, err := time.LoadLocation(tz.str); err == nil {
			c.d.schedule = "CRON_TZ=" + tz.str + " " + c.cron
			c.d.scheduleWhy += " in " + tz.str + " (a CI schedule's cron is often UTC)"
		}
	}
}

// hostRules hold credentials, often encrypted: only the hosts are named,
// never a value.
func (c *renovate) hostRules(n *jnode) {
	if n == nil {
		return
	}
	var hosts []string
	for _, r := range n.vals {
		h := r.get("matchHost")
		if h == nil {
			h = r.get("hostName")
		}
		if h != nil && h.kind == '"' {
			hosts = append(hosts, h.str)
			if x := find(c.d.hosts, h.str); x != nil {
				x.authed = true
			}
		}
	}
	c.note(n, "hostRules for %s: credentials are not converted; give imagebot its own (the registries stub above, or docker login)", strings.Join(hosts, ", "))
}
