package gitops

import (
	"fmt"
	"strings"

	"github.com/imagebot/imagebot/internal/plan"
)

// The branches of rollouts (DESIGN.md "Rollouts from the seeds"): a config
// group's updates, a promotion, the pre-pull and a rollback each share one
// branch named for what they are, so that the group or environment, not
// the version, identifies the PR.

// sharedGroup is the branch an update shares with others, or nil for an
// update of its own image stream.
func sharedGroup(prefix string, u plan.Update) *group {
	switch {
	case u.Kind == plan.KindRollback:
		return &group{Branch: rollbackBranch(prefix, u.Image), Kind: plan.KindRollback}
	case u.Kind == plan.KindPrepull:
		return &group{Branch: prefix + "prepull", Kind: plan.KindPrepull}
	case u.Kind == plan.KindPromotion:
		b := prefix + "promote-" + sanitize(u.Environment) + "-"
		if u.Group != "" {
			b += "group-" + sanitize(u.Group)
		} else {
			b = branchName(b, u.Image, u.To)
		}
		return &group{Branch: b, Kind: plan.KindPromotion, Name: u.Group, Env: u.Environment}
	case u.Group != "":
		return &group{Branch: prefix + "group-" + sanitize(u.Group), Kind: kindGroup, Name: u.Group}
	}
	return nil
}

// rollbackBranch is the branch of `imagebot rollback IMAGE`. A merged PR
// on it declines the version rolled back from, on every branch.
// A chart's is named as its update branch is: "rollback-chart-HOST-PATH".
func rollbackBranch(prefix, image string) string {
	return prefix + "rollback-" + sanitize(branchImage(image))
}

// kindTitle is the title of a shared branch's PR.
func kindTitle(g group) string {
	switch g.Kind {
	case plan.KindRollback:
		u := g.Updates[0]
		return fmt.Sprintf("Roll back %s to %s", shortName(u.Image), u.To)
	case plan.KindPrepull:
		return "Pre-pull " + moves(g) + " on the nodes"
	case plan.KindPromotion:
		if g.Name != "" {
			return fmt.Sprintf("Promote %s to %s: %s", g.Name, g.Env, moves(g))
		}
		return fmt.Sprintf("Promote %s to %s", moves(g), g.Env)
	}
	if to := sameTarget(g); to != "" {
		return fmt.Sprintf("Update %s group to %s", g.Name, to)
	}
	return fmt.Sprintf("Update %s group: %s", g.Name, moves(g))
}

// moves lists the images and their targets: "nginx 1.26.1, redis 7.4.1".
func moves(g group) string {
	var parts []string
	for _, u := range g.Updates {
		parts = appendNew(parts, shortName(u.Image)+" "+u.To)
	}
	return strings.Join(parts, ", ")
}

// sameTarget is the tag every update moves to, or "".
func sameTarget(g group) string {
	to := g.Updates[0].To
	for _, u := range g.Updates {
		if u.To != to {
			return ""
		}
	}
	return to
}

// kindIntro opens the body of a shared branch's PR.
func kindIntro(g group) string {
	var b strings.Builder
	switch g.Kind {
	case plan.KindRollback:
		u := g.Updates[0]
		fmt.Fprintf(&b, "This pull request rolls **%s** back from %s to %s, everywhere the repository references it.\n\n", word(u.Image), lit(u.From), lit(u.To))
	case plan.KindPrepull:
		b.WriteString("This pull request adds images to imagebot's pre-pull DaemonSet, so that the nodes pull them before the rollout " +
			"and the rollout does not wait for (or fail on) the registry:\n\n")
	case plan.KindPromotion:
		fmt.Fprintf(&b, "This pull request promotes to **%s** what has soaked in the environment before it", word(g.Env))
		if g.Name != "" {
			fmt.Fprintf(&b, ", for the **%s** group", word(g.Name))
		}
		b.WriteString(".\n\n")
	default:
		fmt.Fprintf(&b, "This pull request moves the images of the **%s** group together", word(g.Name))
		if sameTarget(g) != "" && len(g.images()) > 1 {
			fmt.Fprintf(&b, ", to %s", lit(sameTarget(g)))
		}
		b.WriteString(".\n\n")
	}
	writeNotes(&b, g)
	return b.String()
}

// writeNotes says what the plan noticed along the PR's updates ("held back
// 1.27.4: 5h old, minAge 3d") and the grounds it proposes them on, each
// once.
func writeNotes(b *strings.Builder, g group) {
	var notes, ev []string
	for _, u := range g.Updates {
		if u.Notice != "" {
			notes = appendNew(notes, u.Notice)
		}
		ev = appendNew(ev, u.Grounds...)
	}
	for _, n := range notes {
		fmt.Fprintf(b, "Note: %s.\n\n", tame(n))
	}
	for _, e := range ev {
		fmt.Fprintf(b, "- %s\n", tame(e))
	}
	if len(ev) > 0 {
		b.WriteString("\n")
	}
}

// humanGate opens the outro of every PR that rolls something out.
const humanGate = "Merging is the human gate: once merged, your GitOps controller rolls it out. "

// outro says what merging and closing the PR do.
func outro(g group) string {
	if g.Major {
		// separateMajorMinor: closing declines the major line (decliner).
		return humanGate + "Closing this pull request without merging tells imagebot not to propose this major version again, " +
			"nor its later releases, until you tick \"propose again\" on the dashboard; updates within the current major " +
			"keep coming in a pull request of their own."
	}
	switch g.Kind {
	case "":
		return humanGate + "Closing this pull request without merging tells imagebot not to propose this version again."
	case plan.KindRollback:
		return fmt.Sprintf("Once this is merged, imagebot does not propose %s again; a newer version is proposed as usual. "+
			"Closing it without merging changes nothing.", lit(g.Updates[0].From))
	case plan.KindPrepull:
		return "Merging adds the images to the DaemonSet; each rollout pull request opens once its image has been on the default branch " +
			"for the configured lead, and removes it from the DaemonSet again. " +
			"Closing this pull request without merging declines these versions: they are neither pre-pulled nor proposed."
	case plan.KindPromotion:
		return humanGate + "Closing this pull request without merging tells imagebot not to promote this version again; " +
			"a newer version is proposed once it has soaked in its turn."
	}
	return humanGate + "Closing this pull request without merging tells imagebot not to propose these versions again."
}

// images are the group's images, in update order, once each.
func (g group) images() []string {
	var out []string
	for _, u := range g.Updates {
		out = appendNew(out, u.Image)
	}
	return out
}

// plain reports whether g is one image stream's branch, whose title and
// body say less because the branch says the rest.
func (g group) plain() bool { return g.Kind == "" }
