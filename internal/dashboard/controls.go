package dashboard

import (
	"regexp"
	"strings"
)

// Controls are the boxes ticked in a body, by the ID of their entry.
type Controls struct {
	OpenNow map[string]bool // "open now" on a waiting or approval-pending update
	Again   map[string]bool // "propose again" on a declined version
}

// checkboxRE is a task list item that carries a control's hidden ID. The
// ID is matched tightly: anything else on the line is people's text.
var checkboxRE = regexp.MustCompile(`(?m)^[ \t]{0,3}[-*+][ \t]+\[([ xX])\][ \t]+<!-- (open|again):([A-Za-z0-9._/@+:-]{1,300}) -->`)

// maxParse is what Parse reads of a body: more than any host keeps
// (GitLab's 1,048,576 characters is the largest).
const maxParse = 4 << 20

// Parse reads the ticked controls of a body. It never fails: a body edited
// into anything yields the boxes it still has, and no others. Which IDs
// count is the caller's: those of the entries it offered.
func Parse(body string) Controls {
	if len(body) > maxParse {
		body = body[:maxParse]
	}
	c := Controls{OpenNow: map[string]bool{}, Again: map[string]bool{}}
	for _, m := range checkboxRE.FindAllStringSubmatch(body, -1) {
		if strings.TrimSpace(m[1]) == "" {
			continue
		}
		if m[2] == "open" {
			c.OpenNow[m[3]] = true
		} else {
			c.Again[m[3]] = true
		}
	}
	return c
}
