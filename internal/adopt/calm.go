package adopt

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// The limits every config init and onboarding write starts with, as
// Renovate's recommended preset does: a repository with seventy updates
// gets two pull requests an hour and ten at most, and the dashboard lists
// the rest. They are written out, so that raising them is an edit.
const (
	DefaultMaxOpen = 10
	DefaultPerHour = 2
)

// Limits are the pull request limits a written config sets: what the
// onboarding pull request tells the user before they merge it.
type Limits struct {
	MaxOpen, PerHour int // 0 is no limit
}

// limits are the draft's limits, the defaults where it says none.
func (d *draft) limits() Limits {
	l := Limits{MaxOpen: DefaultMaxOpen, PerHour: DefaultPerHour}
	if d.maxOpen != nil {
		l.MaxOpen = *d.maxOpen
	}
	if d.perHour != nil {
		l.PerHour = *d.perHour
	}
	return l
}

// String says what the limits do, for the config's comment and the
// onboarding body: "2 pull requests an hour, 10 at most".
func (l Limits) String() string {
	hour := fmt.Sprintf("%d %s an hour", l.PerHour, plural(l.PerHour, "pull request", "pull requests"))
	if l.PerHour == 0 {
		hour = "no hourly limit"
	}
	open := fmt.Sprintf("%d at most", l.MaxOpen)
	if l.MaxOpen == 0 {
		open = "no limit on open ones"
	}
	return hour + ", " + open
}

// pullRequests is the pullRequests section: labels and reviewers when
// converted, and the limits, always.
func (d *draft) pullRequests() []*yaml.Node {
	pr := &yaml.Node{Kind: yaml.MappingNode}
	if len(d.labels) > 0 {
		pr.Content = append(pr.Content, str("labels"), strs(d.labels))
	}
	if len(d.reviewers) > 0 {
		pr.Content = append(pr.Content, str("reviewers"), strs(d.reviewers))
	}
	l := d.limits()
	mo, ph := str("maxOpen"), str("perHour")
	mo.HeadComment = strings.Join(wrap("After merging: "+l.String()+"; the rest "+d.ci.waits+".", 96), "\n") + "\n" +
		"Raise them, or set 0 for no limit."
	pr.Content = append(pr.Content,
		mo, d.commented("maxOpen", integer(l.MaxOpen)),
		ph, d.commented("perHour", integer(l.PerHour)))
	return []*yaml.Node{str("pullRequests"), pr}
}
