package adopt

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/imagebot/imagebot/internal/config"
)

// schemaURL is named in the first line, so that editors with
// yaml-language-server complete and check the file.
const schemaURL = "https://raw.githubusercontent.com/imagebot/imagebot/main/schema/imagebot.schema.json"

// draft is the configuration being generated, with the comments that say
// where each part came from.
type draft struct {
	origin      string // "init" or "init --from flux", for the header
	notes       []Note // what was not converted: comments at the top
	hosts       []*host
	policies    []entry
	suggestions []string // commented-out suggestions below the gates
	groups      []config.Group
	groupNotes  map[string][]string // head comments per group name
	labels      []string
	reviewers   []string
	schedule    string
	scheduleWhy string
	exclude     []excluded
	// The dashboard and the limits (Renovate's dependencyDashboard*,
	// prConcurrentLimit, prHourlyLimit, separateMajorMinor); nil when
	// not said. The limits are always written: nil is the calm default.
	dashboard, onboarding *bool
	dashboardTitle        string
	approval              []string
	maxOpen, perHour      *int
	separateMajorMinor    *bool
	// aliases are mirrors from Renovate's registryAliases, by host.
	aliases map[string]string
	// commitMessage is converted from the old tool; "" when it said
	// none. Its commit author never is: see fluxAutomationSettings.
	commitMessage string
	// mirrors are init's --mirror flags, by registry host.
	mirrors map[string]string
	// onGitHub says the config runs in GitHub Actions, where ghcr.io gets
	// the workflow's GITHUB_TOKEN; on GitLab CI and Gitea Actions it does
	// not.
	onGitHub bool
	// ci is how the comments speak of the CI imagebot runs in.
	ci ciWords
	// why holds a line comment per top-level key written ("maxOpen":
	// "prConcurrentLimit: 5").
	why map[string]string
}

// entry is one generated policy and the comments that explain it.
type entry struct {
	comment []string          // lines above the entry
	why     map[string]string // line comment per key ("pin": "digestReflectionPolicy: Always")
	p       config.Policy
}

func (d *draft) add(e entry) { d.policies = append(d.policies, e) }

// render encodes the draft with kyaml and loads it back with the config
// loader, so that what is returned always passes `imagebot validate`.
func (d *draft) render() ([]byte, error) {
	root := &yaml.Node{Kind: yaml.MappingNode}
	doc := &yaml.Node{Kind: yaml.DocumentNode, HeadComment: d.header(false), Content: []*yaml.Node{root}}

	if len(d.mirrors) > 0 || len(d.aliases) > 0 {
		k := str("registries")
		k.HeadComment = "The mirrors init was given (--mirror)."
		if len(d.aliases) > 0 {
			k.HeadComment = "Renovate's registryAliases: the registry each alias stands for, as its mirror."
			if len(d.mirrors) > 0 {
				k.HeadComment = "The mirrors init was given (--mirror), and Renovate's registryAliases."
			}
		}
		regs := &yaml.Node{Kind: yaml.MappingNode}
		all := maps.Clone(d.aliases)
		if all == nil {
			all = map[string]string{}
		}
		maps.Copy(all, d.mirrors) // --mirror wins
		for _, host := range slices.Sorted(maps.Keys(all)) {
			v := str(all[host])
			if _, ok := d.mirrors[host]; !ok {
				v.LineComment = "registryAliases"
			}
			m := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{str("mirror"), v}}
			regs.Content = append(regs.Content, str(host), m)
		}
		root.Content = append(root.Content, k, regs)
	}
	if len(d.exclude) > 0 {
		root.Content = append(root.Content, d.excludeNode()...)
	}
	if d.schedule != "" {
		k := str("schedule")
		k.HeadComment = "When `imagebot serve` runs (" + d.ci.cron + ")."
		v := str(d.schedule)
		v.LineComment = d.scheduleWhy
		root.Content = append(root.Content, k, v)
	}
	pk := str("policies")
	pk.HeadComment = d.policiesComment()
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	if len(d.policies) == 0 {
		seq.Style = yaml.FlowStyle
	}
	for _, e := range d.policies {
		seq.Content = append(seq.Content, policyNode(e))
	}
	root.Content = append(root.Content, pk, seq)
	if len(d.groups) > 0 {
		gk := str("groups")
		gk.HeadComment = "Images that move together, in one branch and pull request."
		gs := &yaml.Node{Kind: yaml.SequenceNode}
		for _, g := range d.groups {
			m := &yaml.Node{Kind: yaml.MappingNode, HeadComment: strings.Join(d.groupNotes[g.Name], "\n")}
			m.Content = append(m.Content, str("name"), str(g.Name), str("match"), strs(g.Match))
			gs.Content = append(gs.Content, m)
		}
		root.Content = append(root.Content, gk, gs)
	}
	root.Content = append(root.Content, d.pullRequests()...)
	if d.separateMajorMinor != nil {
		root.Content = append(root.Content, str("separateMajorMinor"), d.commented("separateMajorMinor", boolean(*d.separateMajorMinor)))
	}
	if d.commitMessage != "" {
		git := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{str("commitMessage"), str(d.commitMessage)}}
		root.Content = append(root.Content, str("git"), git)
	}
	if d.dashboard != nil {
		root.Content = append(root.Content, str("dashboard"), d.commented("dashboard", boolean(*d.dashboard)))
	}
	if d.dashboardTitle != "" {
		root.Content = append(root.Content, str("dashboardTitle"), d.commented("dashboardTitle", str(d.dashboardTitle)))
	}
	if d.approval != nil {
		root.Content = append(root.Content, str("approval"), d.commented("approval", strs(d.approval)))
	}
	if d.onboarding != nil {
		root.Content = append(root.Content, str("onboarding"), d.commented("onboarding", boolean(*d.onboarding)))
	}
	out, err := encode(doc)
	if err == nil && len(out) > config.MaxSize && len(d.notes) > 0 {
		// init prints the notes too: thousands of them repeated in the
		// header must not cost the config its place.
		doc.HeadComment = d.header(true)
		out, err = encode(doc)
	}
	if err != nil {
		return nil, err
	}
	// What validate (and every command) would make of the file: init
	// never writes one they refuse.
	if _, err := config.Check(".imagebot.yaml", out); err != nil {
		if len(out) > config.MaxSize {
			return nil, fmt.Errorf("%w: the .imagebot.yaml it would write is %d bytes (%d policies), above the %d bytes imagebot reads in a config: "+
				"nothing was written; convert less at once (fewer rules in the config converted, or init on a part of the repository) and run init again",
				ErrTooLarge, len(out), len(d.policies), config.MaxSize)
		}
		// Every part was checked on its own; a file that still does not
		// load is our bug, and writing it would only hand it to the user.
		return nil, fmt.Errorf("the generated .imagebot.yaml does not load (a bug in imagebot init, please report it): %w", err)
	}
	return out, nil
}

func encode(doc *yaml.Node) ([]byte, error) {
	out, err := yaml.MarshalWithOptions(doc, &yaml.EncoderOptions{SeqIndent: yaml.WideSequenceStyle})
	if err != nil {
		return nil, fmt.Errorf("encode .imagebot.yaml: %w", err)
	}
	return out, nil
}

// header is the file's opening comment; summarise leaves the notes out
// but for their count.
func (d *draft) header(summarise bool) string {
	lines := []string{
		"yaml-language-server: $schema=" + schemaURL,
		"",
		"imagebot configuration, written by `imagebot " + d.origin + "`.",
		"Reference: https://github.com/imagebot/imagebot/blob/main/docs/configuration.md",
		"Check it with `imagebot validate`, and see what it would do with `imagebot plan`.",
	}
	if len(d.notes) > 0 {
		heading := "Not converted (also printed by init); decide these by hand:"
		if d.origin == "init" {
			heading = "Notes (also printed by init):"
		}
		lines = append(lines, "", heading)
		if summarise {
			lines = append(lines, fmt.Sprintf("- %d notes, too many to repeat here: see init's output", len(d.notes)))
		} else {
			for _, n := range d.notes {
				lines = append(lines, "- "+n.String())
			}
		}
	}
	return strings.Join(lines, "\n")
}

// policiesComment says which registries were found, how to give them
// credentials, and which gates are worth turning on.
func (d *draft) policiesComment() string {
	var lines []string
	lines = append(lines, registryComment(d.hosts, d.onGitHub, d.ci)...)
	if len(lines) > 0 {
		lines = append(lines, "")
	}
	lines = append(lines,
		"Gates, worth turning on once the first pull requests look right. Each",
		"candidate a gate inspects costs manifest requests, and Docker Hub counts",
		"a manifest request as a pull (10 an hour without a login):",
		"  - match: \"**\"",
		"    platforms: keep   # never propose a tag that lacks a platform the current one has",
		"    minAge: 3d        # let a release age three days (from its build time) first",
	)
	if len(d.suggestions) > 0 {
		lines = append(lines, "")
		lines = append(lines, d.suggestions...)
	}
	if len(d.policies) == 0 {
		lines = append(lines, "", "No policy needed: the default rule (same shape, higher numbers) decides every tag found.")
	} else {
		lines = append(lines, "", "Every matching policy applies, in this order; a key set later wins.")
	}
	return strings.Join(lines, "\n")
}

// policyNode renders one policy with its keys in a fixed, readable order.
func policyNode(e entry) *yaml.Node {
	p := e.p
	m := &yaml.Node{Kind: yaml.MappingNode, HeadComment: strings.Join(e.comment, "\n")}
	put := func(key string, v *yaml.Node) {
		v.LineComment = e.why[key]
		m.Content = append(m.Content, str(key), v)
	}
	put("match", str(p.Match))
	if p.Paths != nil {
		put("paths", strs(p.Paths))
	}
	if p.UpdateTypes != nil {
		put("updateTypes", strs(p.UpdateTypes))
	}
	if p.Skip != nil {
		put("skip", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(*p.Skip)})
	}
	opt := func(key string, v *string) {
		if v != nil {
			put(key, str(*v))
		}
	}
	opt("allow", p.Allow)
	opt("versioning", p.Versioning)
	opt("range", p.Range)
	opt("pattern", p.Pattern)
	if p.Ignore != nil {
		put("ignore", strs(p.Ignore))
	}
	opt("pin", p.Pin)
	if p.MinAge != nil {
		put("minAge", str(p.MinAge.String()))
	}
	if p.Labels != nil {
		put("labels", strs(p.Labels))
	}
	if p.Reviewers != nil {
		put("reviewers", strs(p.Reviewers))
	}
	if p.Automerge != nil {
		put("automerge", strs(p.Automerge))
	}
	if p.Approval != nil {
		put("approval", strs(p.Approval))
	}
	return m
}

// commented gives v the line comment the draft holds for key.
func (d *draft) commented(key string, v *yaml.Node) *yaml.Node {
	v.LineComment = d.why[key]
	return v
}

func integer(n int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: fmt.Sprint(n)}
}

func boolean(b bool) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(b)}
}

// str is a string scalar; the encoder quotes it when YAML would read it as
// anything else (a number, a boolean, an alias), so no escaping is ours.
func str(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

// strs is a flow sequence of strings: `[a, b]`, `[]` when empty.
func strs(ss []string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, s := range ss {
		n.Content = append(n.Content, str(s))
	}
	return n
}

func ptr[T any](v T) *T { return &v }
