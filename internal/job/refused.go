package job

import (
	"maps"
	"slices"
	"strings"

	"github.com/imagebot/imagebot/internal/imagename"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/registry"
)

// refusedNote is how a problem says that the registry refused the
// credentials the config gave it; the hint that follows it (cmd/bot)
// reads the variable's name from it.
const refusedNote = "the registry refused the credentials from "

// explainRefused adds to each lookup that a registry refused (401) while
// the config gave that host credentials which variable they came from: a
// wrong or expired password is then told apart from a missing one, whose
// remedy ("docker login") would not help. creds are by contacted host.
func explainRefused(probs []plan.Problem, creds map[string]registry.Credentials) {
	byHost := map[string]registry.Credentials{}
	for host, c := range creds {
		if c.Env != "" {
			byHost[imagename.CanonicalHost(host)] = c
		}
	}
	if len(byHost) == 0 {
		return
	}
	hosts := slices.Sorted(maps.Keys(byHost))
	for i, pr := range probs {
		if !pr.Failed || !unauthorized(pr.Message) || strings.Contains(pr.Message, refusedNote) {
			continue
		}
		for _, h := range hosts {
			if !strings.Contains(pr.Message, "://"+h+"/") {
				continue
			}
			c := byHost[h]
			note := refusedNote + c.Env
			if c.Username != "" {
				note += " for user " + c.Username
			}
			probs[i].Message += " (" + note + ")"
			break
		}
	}
}

// unauthorized reports whether a registry error is a 401, in the words
// go-containerregistry and registries use.
func unauthorized(msg string) bool {
	return strings.Contains(msg, "UNAUTHORIZED") || strings.Contains(msg, "unauthorized:") ||
		strings.Contains(msg, "status code 401") || strings.Contains(msg, "401 Unauthorized")
}
