package gitops

import (
	"fmt"
	"strings"

	"github.com/imagebot/imagebot/internal/plan"
)

// mergeRequestWords are GitLab's words for what the other hosts call pull
// requests.
var mergeRequestWords = strings.NewReplacer(
	"pull requests", "merge requests", "pull request", "merge request",
	"Pull requests", "Merge requests", "Pull request", "Merge request")

// words speaks the host's language in what the bot writes there (bodies,
// the dashboard, comments): "merge request" on GitLab. The text is the
// same on every run, so an unchanged body still compares equal.
func (r *runner) words(s string) string {
	if r.h.Name() == "GitLab" {
		return mergeRequestWords.Replace(s)
	}
	return s
}

// num is how the host writes a change request's number: #12, or !12 for
// GitLab's merge requests.
func (r *runner) num(n int) string {
	if r.h.Name() == "GitLab" {
		return fmt.Sprintf("!%d", n)
	}
	return fmt.Sprintf("#%d", n)
}

// noticeRef is the image:tag a notice names, as a body shows it: the image
// alone when it has no tag (nginx, not an empty code span after a colon),
// "" when it names no image (a placeholder or an invalid value, which the
// detail quotes).
func noticeRef(n plan.Notice) string {
	switch {
	case n.Image == "":
		return ""
	case n.Tag == "":
		return word(shortName(n.Image))
	}
	return word(shortName(n.Image)) + ":" + word(n.Tag)
}
