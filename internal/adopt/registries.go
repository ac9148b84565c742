package adopt

import (
	"fmt"
	"slices"
	"strings"

	"github.com/imagebot/imagebot/internal/scan"
)

// host is one registry the repository pulls from.
type host struct {
	name   string
	images []string // normalized names, sorted
	refs   int
	// denied is set when listing tags answered 401 or 403: the registry
	// wants credentials that imagebot does not have yet.
	denied bool
	// authed is set when the old tool's config gave it credentials.
	authed bool
}

// publicHosts serve public images anonymously; any other host looks like
// it may need credentials and gets a commented stub.
var publicHosts = map[string]bool{
	"docker.io": true, "quay.io": true, "registry.k8s.io": true, "gcr.io": true,
	"mcr.microsoft.com": true, "public.ecr.aws": true, "registry.suse.com": true,
	"docker.elastic.co": true, "cgr.dev": true, "registry.access.redhat.com": true,
}

// hostsOf groups the references by registry host, sorted by name.
func hostsOf(refs []scan.Ref) []*host {
	by := map[string]*host{}
	for _, r := range refs {
		if r.Image == "" {
			continue
		}
		name, _, _ := strings.Cut(r.Image, "/")
		h := by[name]
		if h == nil {
			h = &host{name: name}
			by[name] = h
		}
		h.refs++
		if !slices.Contains(h.images, r.Image) {
			h.images = append(h.images, r.Image)
		}
	}
	var out []*host
	for _, h := range by {
		slices.Sort(h.images)
		out = append(out, h)
	}
	slices.SortFunc(out, func(a, b *host) int { return strings.Compare(a.name, b.name) })
	return out
}

// private reports whether the host looks like it needs credentials: it
// refused to list tags, or it is not one of the well-known public
// registries (ghcr.io packages are private unless made public).
func (h *host) private() bool {
	return h.denied || h.authed || !publicHosts[h.name]
}

// registryComment lists the registries and, for those that may need
// credentials, a commented stub to uncomment.
func registryComment(hosts []*host, onGitHub bool, ci ciWords) []string {
	if len(hosts) == 0 {
		return nil
	}
	var found []string
	for _, h := range hosts {
		found = append(found, fmt.Sprintf("%s (%d %s)", h.name, h.refs, plural(h.refs, "reference", "references")))
	}
	lines := wrap("Registries found: "+strings.Join(found, ", ")+".", 76)
	var stub []string
	for _, h := range hosts {
		if !h.private() {
			continue
		}
		why := "may be private"
		switch {
		case h.denied:
			why = "refused to list tags without credentials"
		case h.authed:
			why = "the old tool had credentials for it"
		}
		if v := RunnerToken(h.name); v != "" && onGitHub {
			// The forge's token is never a registry password in the
			// config; the keychain gives it to this host alone.
			stub = append(stub, fmt.Sprintf("  # %s (%s) needs no entry: it gets the workflow's %s (the job has `packages: read`)", h.name, why, v))
			continue
		}
		stub = append(stub, fmt.Sprintf("  %s:   # %s", h.name, why),
			"    username: imagebot",
			"    passwordEnv: "+TokenEnv(h.name)+"   # the NAME of the variable, never the secret")
	}
	if h := find(hosts, "docker.io"); h != nil {
		lines = append(lines, wrap("docker.io needs no login to list tags; a login (a `docker login`, or username + passwordEnv) raises Docker Hub's pull limit, which the gates use.", 76)...)
	}
	if len(stub) == 0 {
		return lines
	}
	lines = append(lines, wrap("Private registries need credentials: a `docker login` before imagebot runs ("+ci.login+
		"), or a user name and the name of an environment variable holding the token. Uncomment what applies and set the secret in "+ci.secret+":", 76)...)
	lines = append(lines, "registries:")
	return append(lines, stub...)
}

func find(hosts []*host, name string) *host {
	for _, h := range hosts {
		if h.name == name {
			return h
		}
	}
	return nil
}

// wrap breaks text into lines of at most width runes, at spaces.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
