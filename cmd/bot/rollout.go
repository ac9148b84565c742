package main

import (
	"fmt"
	"io"

	"github.com/imagebot/imagebot/internal/plan"
)

// printWaiting says which references wait for a rollout condition, once
// per image and reason: a promotion that has not soaked, a pre-pull
// within its lead, a lockstep group waiting for a member.
func printWaiting(w io.Writer, p *plan.Plan) {
	seen := map[string]bool{}
	for _, n := range p.Notices {
		switch n.Reason {
		case plan.ReasonPromoted, plan.ReasonPrepulling, plan.ReasonLockstep:
		default:
			continue
		}
		line := fmt.Sprintf("waiting %-21s %s:%s: %s", n.Reason, shortImage(n.Image), n.Tag, n.Detail)
		if !seen[line] {
			seen[line] = true
			fmt.Fprintln(w, line)
		}
	}
}

// shortImage is how people write an image: nginx, bitnami/kubectl.
func shortImage(img string) string {
	for _, p := range []string{"docker.io/library/", "docker.io/"} {
		if len(img) > len(p) && img[:len(p)] == p {
			return img[len(p):]
		}
	}
	return img
}
