package config

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/robfig/cron/v3"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// The values of the enum keys that config owns. The schema test holds the
// JSON Schema's enums to these lists. (The policy keys allow, versioning
// and pin belong to internal/policy: see checkSpec.)
var (
	automergeValues     = []string{"major", "minor", "patch", "build", "digest", "pin", "rollback"}
	updateTypeValues    = automergeValues
	approvalValues      = append(slices.Clone(automergeValues), ApprovalAll)
	signedCommitsValues = []string{SignedCommitsAPI}
)

// cronParser reads what `serve` will run on: standard five fields,
// descriptors (@daily, @every 1h) and a CRON_TZ= prefix.
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// value returns the node of key when it is present, well typed and not
// null: the cases in which a semantic check has something to look at.
func (m mapping) value(d *decoder, key string) *yaml.Node {
	n := m.vals[key]
	if n == nil || d.bad[n] || isNull(n) {
		return nil
	}
	return n
}

// items returns the item nodes of the list under key, nil for those that
// failed their type check (kept in place so that indexes stay the user's).
func (m mapping) items(d *decoder, key string) []*yaml.Node {
	n := m.value(d, key)
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	out := make([]*yaml.Node, len(n.Content))
	for i, item := range n.Content {
		if item = resolve(item); !d.bad[item] {
			out[i] = item
		}
	}
	return out
}

func (c *Config) check(d *decoder, m mapping) {
	if n := m.value(d, "schedule"); n != nil {
		if err := checkSchedule(c.Schedule); err != nil {
			d.errorf(n, "\"schedule\" is not a cron schedule: %v (e.g. \"0 6 * * 1-5\", \"@daily\", \"@every 6h\")", err)
		}
	}
	d.globList(m, "paths")
	d.globList(m, "exclude")
	d.enumList(m, "approval", approvalValues)
	if n := m.value(d, "dashboardTitle"); n != nil && strings.TrimSpace(c.DashboardTitle) == "" {
		d.errorf(n, "\"dashboardTitle\" must not be empty (leave it out for %q)", DefaultDashboardTitle)
	}
	c.checkRegistries(d, m.value(d, "registries"))
	c.checkRollouts(d, m)
	c.checkDraft(d, m)
	c.checkClusters(d, m)
}

// checkDraft rejects draft pull requests next to automerge: GitHub refuses
// to enable auto-merge on a draft, so every such PR would fail late.
func (c *Config) checkDraft(d *decoder, m mapping) {
	pr := m.value(d, "pullRequests")
	if !c.PullRequests.Draft || pr == nil {
		return
	}
	var lines []string
	for i, n := range m.items(d, "policies") {
		if n != nil && len(c.Policies[i].Automerge) > 0 {
			lines = append(lines, fmt.Sprint(ownValue(n, "automerge").Line))
		}
	}
	if len(lines) > 0 {
		d.errorf(ownValue(pr, "draft"), "\"draft: true\" cannot go with automerge (%s %s): GitHub never auto-merges a draft pull request; set draft: false or drop automerge",
			plural(len(lines), "line", "lines"), strings.Join(lines, ", "))
	}
}

// checkSchedule parses spec as serve will. robfig/cron panics on a time
// zone prefix with nothing after it ("TZ="), so that case is an error here
// and serve never sees it.
func checkSchedule(spec string) (err error) {
	defer func() {
		if recover() != nil {
			err = fmt.Errorf("a time zone prefix must be followed by a space and a schedule")
		}
	}()
	_, err = cronParser.Parse(spec)
	return err
}

func globProblem(g string) string {
	switch {
	case g == "":
		return "must not be empty"
	case strings.HasPrefix(g, "/") || strings.HasPrefix(g, "./"):
		return fmt.Sprintf("must be relative to the repository root, without a leading %q", g[:strings.IndexByte(g, '/')+1])
	case !doublestar.ValidatePattern(g):
		return fmt.Sprintf("is not a valid glob: %q", g)
	}
	return ""
}

// hostPattern is host[:port] as registry names are written: DNS labels, or
// a bracketed IPv6 address.
var hostPattern = regexp.MustCompile(`^([a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:]+\])(:[0-9]{1,5})?$`)

// isDockerHub reports whether host is one of Docker Hub's names, which
// are one registry (as internal/imagename.IsDockerHub, which the config
// may not import).
func isDockerHub(host string) bool {
	switch strings.ToLower(host) {
	case "docker.io", "index.docker.io", "registry-1.docker.io":
		return true
	}
	return false
}

// canonicalHost spells a registry host the way normalized image names do.
func canonicalHost(host string) string {
	host = strings.ToLower(host)
	if isDockerHub(host) {
		return "docker.io"
	}
	return host
}

// checkRegistries validates the registry hosts and re-keys c.Registries by
// canonical host, so that docker.io written twice (once as
// index.docker.io) is caught here rather than one silently winning.
func (c *Config) checkRegistries(d *decoder, n *yaml.Node) {
	if n == nil || n.Kind != yaml.MappingNode {
		return
	}
	byHost := map[string]Registry{}
	first := map[string]*yaml.Node{}
	schemes := map[string]mirrorAt{}
	for _, kv := range d.pairs(n, "registries") {
		c.checkMirrorScheme(d, schemes, kv)
		key := kv.key.Value
		hostPart, prefix, hasPath := strings.Cut(key, "/")
		host := canonicalHost(hostPart)
		if hasPath {
			host += "/" + strings.TrimRight(prefix, "/")
		}
		switch {
		case strings.Contains(key, "://"):
			d.errorf(kv.key, "registry %q must be a host such as \"docker.io\", not a URL (a mirror URL goes under \"mirror\")", key)
		case !hostPattern.MatchString(canonicalHost(hostPart)):
			d.errorf(kv.key, "registry %q must be a host[:port] such as \"ghcr.io\" or \"localhost:5000\" (or, for a chart repository mirror, host/path)", key)
		case hasPath && !cleanPrefix(strings.TrimRight(prefix, "/")):
			d.errorf(kv.key, "registry %q: the path after the host must be a chart repository path such as \"charts.bitnami.com/bitnami\", without empty, . or .. segments, query or fragment", key)
		case hasPath && c.Registries[key].Mirror == "":
			d.errorf(kv.key, "registry %q has a path, which only maps HTTP chart repository URLs to a mirror: give it a mirror (or write the bare host %q)", key, hostPart)
		case hasPath && (c.Registries[key].Concurrency != 0 || c.Registries[key].MaxRequests != 0):
			d.errorf(kv.key, "registry %q has a path: concurrency and maxRequests are set per host, on %q", key, hostPart)
		case first[host] != nil:
			d.errorf(kv.key, "registry %q is the same as %q at line %d", key, first[host].Value, first[host].Line)
		default:
			first[host] = kv.key
			byHost[host] = c.Registries[key]
		}
	}
	c.Registries = byHost
}

// cleanPrefix reports whether p is a path prefix of URLs: non-empty
// segments, none of them . or .., and no query or fragment.
func cleanPrefix(p string) bool {
	if p == "" || strings.ContainsAny(p, "?#\\ ") {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// mirrorAt is where a mirror host was first seen, and with which scheme.
type mirrorAt struct {
	scheme, registry string
	line             int
}

// checkMirrorScheme rejects two mirrors on one host with different schemes:
// the registry client keeps one scheme per host, so one of them would be
// contacted with the other's, and an https:// mirror could go over plain
// http.
func (c *Config) checkMirrorScheme(d *decoder, seen map[string]mirrorAt, kv pair) {
	reg := resolve(kv.val)
	if reg.Kind != yaml.MappingNode {
		return
	}
	n := ownValue(reg, "mirror")
	if n == reg || d.bad[n] || mirrorProblem(n.Value) != "" {
		return
	}
	u, _ := url.Parse(n.Value)
	host := strings.ToLower(u.Host)
	prev, ok := seen[host]
	switch {
	case !ok:
		seen[host] = mirrorAt{u.Scheme, kv.key.Value, n.Line}
	case prev.scheme != u.Scheme:
		d.errorf(n, "\"mirror\" %s:// conflicts with the %s:// mirror of %s on the same host (line %d): one host has one scheme; both mirrors on %s must say https:// (or http://)",
			u.Scheme, prev.scheme, prev.registry, prev.line, host)
	}
}

// envName is what a shell accepts as an environment variable name.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (r *Registry) check(d *decoder, m mapping) {
	if n := m.value(d, "mirror"); n != nil {
		if msg := mirrorProblem(r.Mirror); msg != "" {
			d.errorf(n, "\"mirror\" %s", msg)
		}
	}
	if n := m.value(d, "passwordEnv"); n != nil {
		r.PasswordEnvLine = n.Line
		switch {
		case !envName.MatchString(r.PasswordEnv) || looksLikeToken(r.PasswordEnv):
			// The value is not echoed: it may be the very secret that was
			// meant to stay out of the file and out of CI logs.
			d.errorf(n, "\"passwordEnv\" must be the name of an environment variable (such as REGISTRY_TOKEN), not the password itself")
		case ForgeSecret(r.PasswordEnv):
			d.errorf(n, "\"passwordEnv\" %s is the forge's own credential, which never goes to a registry as a password: "+
				"ghcr.io gets the workflow's GITHUB_TOKEN without any configuration (remove username and passwordEnv); "+
				"another registry needs a token of its own, in a variable of its own (such as IMAGEBOT_REGISTRY_TOKEN)", r.PasswordEnv)
		}
	}
	if n := m.value(d, "concurrency"); n != nil && r.Concurrency < 1 {
		d.errorf(n, "\"concurrency\" must be at least 1, got %d (leave it out for the default)", r.Concurrency)
	}
	if n := m.value(d, "maxRequests"); n != nil && r.MaxRequests < 1 {
		d.errorf(n, "\"maxRequests\" must be at least 1, got %d (leave it out for no cap)", r.MaxRequests)
	}
}

// keyHint steers a secret written into the file towards passwordEnv.
func (*Registry) keyHint(key string) string {
	switch strings.ToLower(key) {
	case "password", "pass", "passwd", "token", "secret", "auth", "pat":
		return " (secrets don't go in the file: put it in an environment variable and use passwordEnv to name it)"
	}
	return ""
}

// forgeSecrets are the variables that hold the credentials of the forge
// and of the CI runner: imagebot's own GitHub token and App, the other
// forges' tokens, and what GitHub Actions gives a job. A registry is never
// sent one as a password, whatever the config says; ghcr.io gets
// GITHUB_TOKEN through the keychain, for that host only.
var forgeSecrets = []string{
	"GITHUB_TOKEN", "GH_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN",
	"IMAGEBOT_APP_ID", "IMAGEBOT_APP_PRIVATE_KEY", "IMAGEBOT_APP_PRIVATE_KEY_FILE", "IMAGEBOT_APP_INSTALLATION_ID",
	"GITLAB_TOKEN", "GL_TOKEN", "CI_JOB_TOKEN", "GITEA_TOKEN", "FORGEJO_TOKEN",
	"AZURE_DEVOPS_TOKEN", "SYSTEM_ACCESSTOKEN", // Azure DevOps' PAT and Azure Pipelines' job token
	"ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
}

// ForgeSecret tells whether an environment variable holds the forge's or
// the CI runner's own credentials (compared as Windows would, ignoring case).
func ForgeSecret(name string) bool {
	return slices.ContainsFunc(forgeSecrets, func(s string) bool { return strings.EqualFold(s, name) })
}

// tokenPrefixes start the access tokens of GitHub, GitLab and Docker Hub,
// which are also valid variable names.
var tokenPrefixes = []string{"ghp_", "gho_", "ghs_", "ghu_", "ghr_", "github_pat_", "glpat-", "dckr_pat_"}

func looksLikeToken(s string) bool {
	return slices.ContainsFunc(tokenPrefixes, func(p string) bool { return strings.HasPrefix(s, p) })
}

func mirrorProblem(s string) string {
	if !strings.Contains(s, "://") {
		// Never guess http: a mirror without a scheme gets none.
		return fmt.Sprintf("needs a scheme: write \"https://%s\" (or http:// for a plain-HTTP mirror)", s)
	}
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return "is not a valid URL"
	case u.User != nil:
		// Not echoed: the URL holds a secret.
		return "must not hold credentials: secrets don't go in the file (use username and passwordEnv)"
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Sprintf("must be an http:// or https:// URL, got scheme %q", u.Scheme)
	case u.Host == "" || u.Hostname() == "":
		return fmt.Sprintf("has no host: %q", s)
	case u.RawQuery != "" || u.Fragment != "" || u.Opaque != "":
		return fmt.Sprintf("must be scheme://host[:port][/path], without query or fragment: %q", s)
	}
	return ""
}

// CheckMatch is nil when g is a match validate accepts (a glob that can
// fit a normalized name), else the reason: for generators of configs,
// which must not write what validate refuses.
func CheckMatch(g string) error {
	if msg := imageGlobProblem(g); msg != "" {
		return fmt.Errorf("match %s", msg)
	}
	return nil
}

// imageGlobProblem says what is wrong with a glob over normalized image
// names (a policy's match, a group's), or "".
func imageGlobProblem(g string) string {
	switch {
	case g == "":
		return "must not be empty"
	case !doublestar.ValidatePattern(g):
		return fmt.Sprintf("is not a valid glob: %q", g)
	}
	if msg := matchProblem(g); msg != "" {
		return fmt.Sprintf("%q %s", g, msg)
	}
	return ""
}

// matchProblem catches globs that can never fit a normalized name, which
// always starts with a registry host and spells Docker Hub's official
// images as docker.io/library/<name>.
func matchProblem(g string) string {
	first, rest, _ := strings.Cut(g, "/")
	segs := strings.Split(g, "/")
	switch {
	case strings.HasPrefix(g, "oci://") || strings.HasPrefix(g, "https://") || strings.HasPrefix(g, "http://"):
		return "" // a chart: repository URL and chart name
	case !slices.Contains(segs, "**") && len(segs) < 2 && strings.ContainsAny(g, "*?["):
		// `*` stays within a segment, and every name has a host and a
		// path: match: '*' (Renovate's "every package") fits nothing.
		return "never fits: a name always has a registry host and a path, and \"*\" stays within one segment (did you mean \"**\", every image?)"
	case slices.Contains(segs, ""):
		return "never fits: names have no empty segment (no leading, trailing or double \"/\")"
	case strings.ContainsAny(literalText(g), "ABCDEFGHIJKLMNOPQRSTUVWXYZ"):
		return fmt.Sprintf("never fits: names are lower case (did you mean %q?)", strings.ToLower(g))
	case strings.ContainsAny(literalText(strings.Join(segs[1:], "/")), ":@"):
		return "never fits: match names images, without a tag or digest (put versions in allow, range or ignore)"
	case first != "docker.io" && isDockerHub(first):
		return fmt.Sprintf("never fits: names are normalized (did you mean \"docker.io/%s\"?)", rest)
	case first == "docker.io" && rest != "" && !strings.Contains(rest, "/") && !strings.Contains(rest, "**"):
		return fmt.Sprintf("never fits: names are normalized (did you mean \"docker.io/library/%s\"?)", rest)
	case !strings.ContainsAny(first, ".:*?[{\\") && first != "localhost":
		if rest == "" {
			return fmt.Sprintf("never fits: names are normalized (did you mean \"docker.io/library/%s\"?)", g)
		}
		return fmt.Sprintf("never fits: names are normalized and start with a registry host (did you mean \"docker.io/%s\"?)", g)
	}
	return ""
}

// literalText is g without its character classes and escapes, the part
// that must appear in a name as written.
func literalText(g string) string {
	var b strings.Builder
	for i := 0; i < len(g); i++ {
		switch g[i] {
		case '\\':
			i++
		case '[':
			for i < len(g) && g[i] != ']' {
				i++
			}
		default:
			b.WriteByte(g[i])
		}
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func (d *decoder) enum(m mapping, key string, v *string, options []string) {
	if n := m.value(d, key); n != nil {
		d.enumValue(n, key, *v, options)
	}
}

// nonEmpty reports empty strings in the list under key: an empty label or
// version is always a slip (a stray `-` or `""`).
func (d *decoder) nonEmpty(m mapping, key string) {
	for i, n := range m.items(d, key) {
		if n != nil && strings.TrimSpace(n.Value) == "" {
			d.errorf(n, "\"%s[%d]\" must not be empty", key, i)
		}
	}
}

func (pr *PullRequests) check(d *decoder, m mapping) {
	d.nonEmpty(m, "labels")
	d.nonEmpty(m, "reviewers")
	for key, v := range map[string]int{"maxOpen": pr.MaxOpen, "perHour": pr.PerHour, "perRun": pr.PerRun} {
		if n := m.value(d, key); n != nil && v < 0 {
			d.errorf(n, "%q must be 0 (no limit) or more, got %d", key, v)
		}
	}
}

// enumList reports each item of the list under key that is not one of
// options.
func (d *decoder) enumList(m mapping, key string, options []string) {
	for i, n := range m.items(d, key) {
		if n != nil {
			d.enumValue(n, fmt.Sprintf("%s[%d]", key, i), n.Value, options)
		}
	}
}

// globList reports each item of the list under key that is not a valid
// glob relative to the repository root.
func (d *decoder) globList(m mapping, key string) {
	for i, n := range m.items(d, key) {
		if n == nil {
			continue
		}
		if msg := globProblem(n.Value); msg != "" {
			d.errorf(n, "\"%s[%d]\" %s", key, i, msg)
		}
	}
}
