package config

import (
	"fmt"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// Platforms is the platforms gate of a policy. The zero value is off (no
// platform asked for, which is also what `platforms: []` says). With Keep,
// a candidate must have every platform the current image has; otherwise it
// must have each of List, written os/arch[/variant] ("linux/arm64",
// "linux/arm/v7").
type Platforms struct {
	Keep bool
	List []string
}

// platformsKeep is the one word `platforms:` takes instead of a list.
const platformsKeep = "keep"

func (p *Platforms) decodeYAML(d *decoder, n *yaml.Node, name string) {
	const want = "keep or a list of platforms such as [linux/amd64, linux/arm64]"
	switch {
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" && n.Value == platformsKeep:
		*p = Platforms{Keep: true}
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" && platformProblem(n.Value) == "":
		d.typeError(n, name, want, fmt.Sprintf(" (write [%s])", n.Value))
	case n.Kind == yaml.SequenceNode:
		list := make([]string, 0, len(n.Content))
		first := map[string]*yaml.Node{}
		for i, item := range n.Content {
			item = resolve(item)
			where := fmt.Sprintf("%s[%d]", name, i)
			var s string
			if d.decode(item, reflect.ValueOf(&s).Elem(), where); d.bad[item] {
				continue
			}
			if msg := platformProblem(s); msg != "" {
				d.badValue(item, "%q %s", where, msg)
			} else if f := first[s]; f != nil {
				d.badValue(item, "%q repeats %q (first at line %d)", where, s, f.Line)
			} else {
				first[s] = item
				list = append(list, s)
			}
		}
		*p = Platforms{List: list}
	default:
		d.typeError(n, name, want, suggest(n.Value, []string{platformsKeep}))
	}
}

// knownOS and knownArch are GOOS and GOARCH values (go/build's syslist):
// the OCI image index names platforms with them.
var (
	knownOS = []string{"aix", "android", "darwin", "dragonfly", "freebsd", "hurd", "illumos", "ios", "js",
		"linux", "netbsd", "openbsd", "plan9", "solaris", "wasip1", "windows", "zos"}
	knownArch = []string{"386", "amd64", "arm", "arm64", "loong64", "mips", "mipsle", "mips64", "mips64le",
		"ppc", "ppc64", "ppc64le", "riscv", "riscv64", "s390", "s390x", "sparc", "sparc64", "wasm"}
	variantPattern = regexp.MustCompile(`^v[0-9]+(\.[0-9]+)?$`)
)

// platformProblem checks os/arch[/variant] against the names registries
// use, so that "linux/amd46" fails on load rather than holding back every
// candidate.
func platformProblem(s string) string {
	parts := strings.Split(s, "/")
	if len(parts) < 2 || len(parts) > 3 {
		return fmt.Sprintf("must be os/arch or os/arch/variant, such as linux/arm64 or linux/arm/v7, got %q", s)
	}
	if !slices.Contains(knownOS, parts[0]) {
		return fmt.Sprintf("has an unknown os %q%s", parts[0], suggest(parts[0], knownOS))
	}
	if !slices.Contains(knownArch, parts[1]) {
		return fmt.Sprintf("has an unknown architecture %q%s", parts[1], suggest(parts[1], knownArch))
	}
	if len(parts) == 3 && !variantPattern.MatchString(parts[2]) {
		return fmt.Sprintf("has an unknown variant %q (variants are written v7, v8, v3)", parts[2])
	}
	return ""
}

// Signature is the signature gate: a cosign signature on the candidate's
// digest, checked with a public key (Key) or keyless (Identity and Issuer).
// A loaded Signature has exactly one of the two forms.
type Signature struct {
	// Key is the path of a PEM public key file, relative to the repository
	// root, so that the key is reviewed like any other change.
	Key string `yaml:"key"`
	// Identity is an RE2 regexp that the whole certificate identity (the
	// signing workflow's URL or the signer's email) must match; see
	// IdentityRegexp.
	Identity string `yaml:"identity"`
	// Issuer is the OIDC issuer URL the certificate must name, such as
	// https://token.actions.githubusercontent.com.
	Issuer string `yaml:"issuer"`
}

// IdentityRegexp compiles Identity anchored at both ends: a pattern such as
// `https://github.com/acme/` must not accept
// `https://evil.example/?https://github.com/acme/`. It is nil for a key.
func (s *Signature) IdentityRegexp() (*regexp.Regexp, error) {
	if s.Identity == "" {
		return nil, nil
	}
	return regexp.Compile(`^(?:` + s.Identity + `)$`)
}

func (s *Signature) check(d *decoder, m mapping) {
	key, identity, issuer := m.keys["key"], m.keys["identity"], m.keys["issuer"]
	switch {
	case key == nil && identity == nil && issuer == nil:
		d.errorf(m.node, "\"signature\" needs a public key (key: keys/cosign.pub) or a keyless signer (identity and issuer)")
	case key != nil && (identity != nil || issuer != nil):
		other := identity
		if other == nil {
			other = issuer
		}
		d.errorf(other, "\"signature\" is either key or identity and issuer, not both: keep one form")
	case key == nil && identity == nil:
		d.errorf(issuer, "keyless \"signature\" needs \"identity\" too: a regexp for who signed, such as '^https://github.com/acme/.+$'")
	case key == nil && issuer == nil:
		d.errorf(identity, "keyless \"signature\" needs \"issuer\" too, such as https://token.actions.githubusercontent.com")
	}
	if n := m.value(d, "key"); n != nil {
		if msg := repoFileProblem(s.Key); msg != "" {
			d.errorf(n, "\"key\" %s", msg)
		}
	}
	if n := m.value(d, "identity"); n != nil {
		if strings.TrimSpace(s.Identity) == "" {
			d.errorf(n, "\"identity\" must not be empty")
		} else if _, err := regexp.Compile(s.Identity); err != nil {
			d.errorf(n, "\"identity\" is not a valid regexp: %v", err)
		}
	}
	if n := m.value(d, "issuer"); n != nil {
		if u, err := url.Parse(s.Issuer); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
			d.errorf(n, "\"issuer\" must be the OIDC issuer URL, such as https://token.actions.githubusercontent.com, got %q", s.Issuer)
		}
	}
}

// repoFileProblem checks a path to a file in the repository: relative,
// clean, inside the repository and outside .git.
func repoFileProblem(p string) string {
	clean, inside := repoPath(p)
	switch {
	case strings.TrimSpace(p) == "":
		return "must not be empty"
	case strings.HasPrefix(p, "/"):
		return fmt.Sprintf("must be relative to the repository root, got %q", p)
	case strings.Contains(p, `\`):
		return fmt.Sprintf("must use forward slashes, got %q", p)
	case !inside:
		return fmt.Sprintf("must stay inside the repository, got %q", p)
	case clean != p:
		return fmt.Sprintf("must be a plain relative path: write %q", clean)
	case p == ".git" || strings.HasPrefix(p, ".git/") || strings.Contains(p, "/.git/"):
		return fmt.Sprintf("must not be inside .git, got %q", p)
	}
	return ""
}
