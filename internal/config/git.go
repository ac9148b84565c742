package config

import (
	"fmt"
	"net/mail"
	"reflect"
	"regexp"
	"strings"
	"text/template"
)

// MessageData is what a commit message template sees. Its fields are the
// whole contract, so that a template that loads also renders.
type MessageData struct {
	Image  string // normalized name, "docker.io/library/nginx"
	From   string // current tag
	To     string // new tag (the same as From for a digest update)
	Type   string // major, minor, patch, build, digest, pin or rollback
	Digest string // new digest, "" when none is written
}

// Message renders the commit message template for one update.
func (g Git) Message(data MessageData) (string, error) {
	tmpl := g.CommitMessage
	if tmpl == "" {
		tmpl = DefaultCommitMessage
	}
	t, err := parseMessage(tmpl)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		return "", fmt.Errorf("render commit message: %w", err)
	}
	return b.String(), nil
}

func parseMessage(s string) (*template.Template, error) {
	// missingkey=error: a typo such as {{.Imgae}} fails on load, not in a
	// commit.
	return template.New("commitMessage").Option("missingkey=error").Parse(s)
}

// sampleMessage is rendered on load: parsing alone accepts unknown fields.
var sampleMessage = MessageData{
	Image: "docker.io/library/nginx", From: "1.25.3", To: "1.25.4",
	Type: "patch", Digest: "sha256:" + strings.Repeat("0", 64),
}

// messageFields spells MessageData's fields as a template uses them:
// "{{.Image}} {{.From}} ...".
func messageFields() string {
	t := reflect.TypeFor[MessageData]()
	fields := make([]string, t.NumField())
	for i := range fields {
		fields[i] = "{{." + t.Field(i).Name + "}}"
	}
	return strings.Join(fields, " ")
}

// templateError is text/template's wording of a parse or execution error:
// "template: NAME:LINE[:COL]: [executing "NAME" at <.X>: ]MSG".
var templateError = regexp.MustCompile(`^template: commitMessage:[0-9]+(?::[0-9]+)?: (?:executing "commitMessage" at <[^>]*>: )?`)

// templateProblem says what is wrong with a commit message template in the
// user's terms. text/template names the Go type behind the dot ("can't
// evaluate field Imgae in type config.MessageData"), which means nothing
// to someone writing .imagebot.yaml.
func templateProblem(err error) string {
	msg := templateError.ReplaceAllString(err.Error(), "")
	typ := reflect.TypeFor[MessageData]().String()
	if field, ok := strings.CutPrefix(msg, "can't evaluate field "); ok && strings.HasSuffix(field, " in type "+typ) {
		return fmt.Sprintf("{{.%s}} is not a field", strings.TrimSuffix(field, " in type "+typ))
	}
	return strings.ReplaceAll(msg, typ, "the commit message data")
}

func (g *Git) check(d *decoder, m mapping) {
	if n := m.value(d, "commitMessage"); n != nil {
		t, err := parseMessage(g.CommitMessage)
		var b strings.Builder
		if err == nil {
			err = t.Execute(&b, sampleMessage)
		}
		switch {
		case err != nil:
			d.errorf(n, "\"commitMessage\" is not a valid template: %s; a template may use %s", templateProblem(err), messageFields())
		case strings.TrimSpace(b.String()) == "":
			d.errorf(n, "\"commitMessage\" renders an empty message")
		}
	}
	d.enum(m, "signedCommits", &g.SignedCommits, signedCommitsValues)
	if n := m.value(d, "branchPrefix"); n != nil {
		if g.BranchPrefix == "" {
			// Without a prefix the bot could not tell its branches from
			// people's; leaving the key out gives the default.
			d.errorf(n, "\"branchPrefix\" must not be empty (leave it out for %q)", DefaultBranchPrefix)
		} else if msg := refProblem(g.BranchPrefix); msg != "" {
			d.errorf(n, "\"branchPrefix\" %s", msg)
		}
	}
}

// refProblem applies the rules of git check-ref-format that a prefix can
// break on its own, so that a bad prefix fails on load rather than at the
// first push.
func refProblem(s string) string {
	if i := strings.IndexFunc(s, func(r rune) bool {
		return r <= ' ' || r == 0x7f || strings.ContainsRune("~^:?*[\\", r)
	}); i >= 0 {
		return fmt.Sprintf("must not contain %q (git branch names cannot)", s[i:i+1])
	}
	for _, bad := range []string{"..", "@{", "//", "/.", ".lock/"} {
		if strings.Contains(s, bad) {
			return fmt.Sprintf("must not contain %q (git branch names cannot)", bad)
		}
	}
	if strings.HasPrefix(s, "/") || strings.HasPrefix(s, "-") || strings.HasPrefix(s, ".") {
		return fmt.Sprintf("must not start with %q (git branch names cannot)", s[:1])
	}
	return ""
}

func (a *Author) check(d *decoder, m mapping) {
	if n := m.value(d, "email"); n != nil {
		if addr, err := mail.ParseAddress(a.Email); err != nil || addr.Address != a.Email {
			d.errorf(n, "\"email\" must be a bare address such as \"bot@example.com\", got %q", a.Email)
		}
	}
	if n := m.value(d, "name"); n != nil && strings.TrimSpace(a.Name) == "" {
		d.errorf(n, "\"name\" must not be blank")
	}
}
