package job

import (
	"log/slog"
	"time"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/registry/cache"
)

// buildTimes keeps the build times an order policy read in --cache
// (plan.BuildTimes), under the registry and path references name.
type buildTimes struct {
	c   *cache.Cache
	log *slog.Logger
}

func (b buildTimes) Builds(repo name.Repository) map[string]time.Time {
	return b.c.Builds(repo.RegistryStr(), repo.RepositoryStr())
}

func (b buildTimes) PutBuilds(repo name.Repository, created map[string]time.Time) {
	if err := b.c.PutBuilds(repo.RegistryStr(), repo.RepositoryStr(), created); err != nil {
		// Not kept: the next run reads those images again, within the bound.
		b.log.Debug("build times not cached", "repo", repo.Name(), "error", err)
	}
}

// builds is the record of build times for plan.Options: nil without
// --cache.
func (c *Cache) builds(log *slog.Logger) plan.BuildTimes {
	if c == nil || c.opened == nil {
		return nil
	}
	return buildTimes{c: c.opened, log: log}
}
