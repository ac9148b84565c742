package main

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/imagebot/imagebot/internal/plan"
)

// requestRE finds the request a registry error is about, as the registry
// client spells it: "GET https://HOST/v2/PATH: CAUSE".
var requestRE = regexp.MustCompile(`[A-Z]+ https?://([^/\s]+)(/v2/\S*): (.*)$`)

// downRE takes the last error out of the registry client's "is down".
var downRE = regexp.MustCompile(`^registry \S+ is down: .*?\(last: (.*)\); not asked again this run$`)

// refusedRE finds the note internal/job adds to a lookup the registry
// refused while the config gave it credentials.
var refusedRE = regexp.MustCompile(`the registry refused the credentials from ([A-Za-z_][A-Za-z0-9_]*)(?: for user (\S+))?\)`)

// deadHost is the lookups that one unreachable registry host failed.
type deadHost struct {
	host   string
	cause  string
	images []string
	// places are the references of each image, "file:line", for
	// --verbose: a failed lookup stands for every place of its image.
	places map[string][]string
}

// splitDead separates the problems that are failures of a whole host from
// the others (a file's problem, one repository's error, a dangling
// reference), which keep one line each.
func splitDead(probs []plan.Problem) ([]deadHost, []plan.Problem) {
	var dead []deadHost
	var rest []plan.Problem
	for _, pr := range probs {
		host, cause, ok := hostFailure(pr)
		if !ok {
			rest = append(rest, pr)
			continue
		}
		i := slices.IndexFunc(dead, func(d deadHost) bool { return d.host == host })
		if i < 0 {
			dead = append(dead, deadHost{host: host, cause: cause, places: map[string][]string{}})
			i = len(dead) - 1
		}
		if !slices.Contains(dead[i].images, pr.Image) {
			dead[i].images = append(dead[i].images, pr.Image)
		}
		for _, at := range places(pr) {
			if !slices.Contains(dead[i].places[pr.Image], at) {
				dead[i].places[pr.Image] = append(dead[i].places[pr.Image], at)
			}
		}
	}
	slices.SortFunc(dead, func(a, b deadHost) int { return strings.Compare(a.host, b.host) })
	return dead, rest
}

// hostFailure reports whether a problem is a lookup that failed on its
// registry host rather than on its repository, and which host and why:
// the /v2/ probe every host gets first failed (a refused connection, a
// host found down), or the error is one that concerns the whole host (a
// name that does not resolve, a certificate, plain HTTP, credentials
// refused). Such a failure repeats for every image of the host. A
// repository the registry does not know (NAME_UNKNOWN) is not one.
func hostFailure(pr plan.Problem) (host, cause string, ok bool) {
	if !pr.Failed || pr.Kind != "" {
		return "", "", false
	}
	m := requestRE.FindStringSubmatch(pr.Message)
	if m == nil {
		return "", "", false
	}
	host, cause = m[1], m[3]
	if d := downRE.FindStringSubmatch(cause); d != nil {
		cause = d[1]
	}
	if m[2] != "/v2/" && hint(host, cause) == "" {
		return "", "", false
	}
	return host, cause, true
}

// printProblems lists the problems for a person: one line per registry
// host that could not be reached, with the number of images it left
// unlooked-up and a hint where the error says what to do, then every other
// problem with its file and line. verbose lists the images of each host.
func printProblems(w io.Writer, probs []plan.Problem, verbose bool) {
	if len(probs) == 0 {
		return
	}
	dead, rest := splitDead(probs)
	if len(dead) > 0 {
		fmt.Fprintf(w, "\n%d %s not reached:\n", len(dead), plural(len(dead), "registry", "registries"))
	}
	for _, d := range dead {
		fmt.Fprintf(w, "  %s%s: %s not looked up: %s\n", d.host, mirrorOf(d), countNames(d.images), clipCause(d.cause))
		if h := hint(d.host, d.cause); h != "" {
			fmt.Fprintf(w, "    hint: %s\n", h)
		}
		if verbose {
			for _, img := range d.images {
				fmt.Fprintf(w, "    %s (%s)\n", img, strings.Join(d.places[img], ", "))
			}
		}
	}
	if len(rest) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%d %s:\n", len(rest), plural(len(rest), "problem", "problems"))
	for _, pr := range rest {
		fmt.Fprintf(w, "  %s:%d: %s\n", pr.File, pr.Line, pr.Message)
		if e := pr.Elsewhere(); e != "" && verbose {
			fmt.Fprintf(w, "    also at: %s\n", e)
		}
		if m := requestRE.FindStringSubmatch(pr.Message); m != nil && pr.Failed {
			if h := hint(m[1], m[3]); h != "" {
				fmt.Fprintf(w, "    hint: %s\n", h)
			}
		}
	}
}

// places are where a problem is: every reference it concerns.
func places(pr plan.Problem) []string {
	if len(pr.Locations) == 0 {
		return []string{fmt.Sprintf("%s:%d", pr.File, pr.Line)}
	}
	out := make([]string, len(pr.Locations))
	for i, l := range pr.Locations {
		out[i] = fmt.Sprintf("%s:%d", l.File, l.Line)
	}
	return out
}

// mirrorOf names the registries a host stands in for (" (for docker.io)")
// when it is a mirror, so that the line says which images it concerns.
func mirrorOf(d deadHost) string {
	var regs []string
	for _, img := range d.images {
		// An OCI chart is named oci://HOST/PATH/CHART.
		reg, _, _ := strings.Cut(strings.TrimPrefix(img, "oci://"), "/")
		if reg != d.host && !slices.Contains(regs, reg) {
			regs = append(regs, reg)
		}
	}
	if len(regs) == 0 {
		return ""
	}
	slices.Sort(regs)
	return " (for " + strings.Join(regs, ", ") + ")"
}

// countNames counts what a host left unlooked-up: "3 images", "1 chart",
// "2 images and 1 chart" (a chart's name has a scheme, oci://).
func countNames(names []string) string {
	var images, charts int
	for _, n := range names {
		if strings.Contains(n, "://") {
			charts++
		} else {
			images++
		}
	}
	var parts []string
	if images > 0 || charts == 0 {
		parts = append(parts, fmt.Sprintf("%d %s", images, plural(images, "image", "images")))
	}
	if charts > 0 {
		parts = append(parts, fmt.Sprintf("%d %s", charts, plural(charts, "chart", "charts")))
	}
	return strings.Join(parts, " and ")
}

// maxCause bounds the error shown for a host: a registry may answer with
// a page of HTML.
const maxCause = 320

func clipCause(s string) string {
	if len(s) <= maxCause {
		return s
	}
	cut := maxCause
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// hint says what to do about a registry error, where its text says which
// failure it is; "" otherwise.
func hint(host, msg string) string {
	switch {
	case strings.Contains(msg, "write http:// explicitly"):
		return "" // the registry client's message says it already
	case strings.Contains(msg, "no such host"), strings.Contains(msg, "server misbehaving"):
		return fmt.Sprintf("the name %s does not resolve here: check its spelling, or reach it through a mirror (--mirror %s=https://mirror.example.com, or registries: %s: mirror: in .imagebot.yaml)", host, host, host)
	case strings.Contains(msg, "certificate is valid for"), strings.Contains(msg, "certificate is not valid for any names"):
		return fmt.Sprintf("the TLS certificate of %s names other hosts: use the name it was issued for, or a mirror whose certificate matches", host)
	case strings.Contains(msg, "certificate signed by unknown authority"):
		return fmt.Sprintf("the TLS certificate of %s is not signed by an authority trusted here: add its CA to the system's trust store (or SSL_CERT_FILE)", host)
	case strings.Contains(msg, "server gave HTTP response to HTTPS client"):
		return fmt.Sprintf("%s speaks plain HTTP: write the mirror as http://%s in .imagebot.yaml (registries: ...: mirror:); plain HTTP is used only where written", host, host)
	case refusedRE.MatchString(msg):
		// The config gave credentials, and the registry refused them:
		// docker login would not help, the variable's value is wrong.
		m := refusedRE.FindStringSubmatch(msg)
		user := ""
		if m[2] != "" {
			user = " (user " + m[2] + ")"
		}
		return fmt.Sprintf("%s refused the credentials from %s%s: check that %s holds a valid, unexpired password or token with pull access; the config's credentials are used before any docker login", host, m[1], user, m[1])
	case strings.Contains(msg, "UNAUTHORIZED"), strings.Contains(msg, "unauthorized:"),
		strings.Contains(msg, "status code 401"), strings.Contains(msg, "401 Unauthorized"):
		return fmt.Sprintf("%s wants credentials: `docker login %s`, or registries: %s: {username: ..., passwordEnv: ...} in .imagebot.yaml", host, host, host)
	case strings.Contains(msg, "proxyconnect"):
		return "the proxy (HTTPS_PROXY, HTTP_PROXY) did not answer: check it, or list the registry in NO_PROXY"
	case strings.Contains(msg, "connection refused"):
		return fmt.Sprintf("nothing listens at %s: check the host and port, or reach it through a mirror", host)
	}
	return ""
}

// noLookup are the reasons of notices given without asking a registry:
// they do not show that any lookup succeeded.
var noLookup = []string{plan.ReasonNoTag, plan.ReasonDigestOnly, plan.ReasonVariable, plan.ReasonInvalid,
	plan.ReasonSkipped, plan.ReasonRenamed, plan.ReasonWatched, plan.ReasonPromoted}

// headline is the first line of a plan without updates: "no updates"
// only when every lookup succeeded; a plan whose lookups failed says so,
// so that "no updates" never reads as "up to date" when nothing was known.
func headline(p *plan.Plan) string {
	failed := slices.ContainsFunc(p.Problems, func(pr plan.Problem) bool { return pr.Failed && pr.Kind != plan.KindDangling })
	if !failed {
		return "no updates"
	}
	looked := slices.ContainsFunc(p.Problems, func(pr plan.Problem) bool { return pr.Kind == plan.KindDangling }) ||
		slices.ContainsFunc(p.Notices, func(n plan.Notice) bool { return !slices.Contains(noLookup, n.Reason) })
	if !looked {
		return "no updates known: no image could be looked up"
	}
	return "no updates among the images looked up"
}
