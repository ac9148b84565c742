package gitops

import (
	"fmt"
	"strings"

	"github.com/imagebot/imagebot/internal/gitops/forge"
	"github.com/imagebot/imagebot/internal/plan"
)

// Words are what a host calls a change request and how its Markdown
// mentions one: GitLab's "merge request" !12; Azure DevOps' pull request
// !12, since #12 there links a work item; GitHub's, Gitea's and
// Bitbucket's pull request #12.
type Words struct{ One, Many, Sigil string }

// WordsOf is the words of host kind, for what is said of its change
// requests in the CLI as in what the bot writes there.
func WordsOf(k Kind) Words {
	switch k {
	case GitLab:
		return Words{"merge request", "merge requests", "!"}
	case forge.Azure:
		return Words{"pull request", "pull requests", "!"}
	}
	return Words{"pull request", "pull requests", "#"}
}

// kindNamed is the kind of the host a Forge names itself (Forge.Name),
// for the words the runner writes there; GitHub's for any other host.
func kindNamed(name string) Kind {
	switch name {
	case "GitLab":
		return GitLab
	case "Azure DevOps":
		return forge.Azure
	}
	return GitHub
}

// mergeRequestWords are GitLab's words for what the other hosts call pull
// requests.
var mergeRequestWords = strings.NewReplacer(
	"pull requests", "merge requests", "pull request", "merge request",
	"Pull requests", "Merge requests", "Pull request", "Merge request")

// words speaks the host's language in what the bot writes there (bodies,
// the dashboard, comments): "merge request" on GitLab. The text is the
// same on every run, so an unchanged body still compares equal.
func (r *runner) words(s string) string {
	if WordsOf(kindNamed(r.h.Name())).One == "merge request" {
		return mergeRequestWords.Replace(s)
	}
	return s
}

// num is how the host writes a change request's number: #12, or !12 for
// GitLab's merge requests and Azure DevOps' pull requests.
func (r *runner) num(n int) string {
	return fmt.Sprintf("%s%d", WordsOf(kindNamed(r.h.Name())).Sigil, n)
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
