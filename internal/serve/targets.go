package serve

import (
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"

	"github.com/imagebot/imagebot/internal/gitops"
)

// Target is one checkout that the server runs on.
type Target struct {
	URL string // the clone URL; "" for Options.Dir, the user's own clone
	Dir string
	// Repository is owner/name for the clone URL (GITHUB_REPOSITORY for
	// its run); "" for Options.Dir, whose run reads it from origin.
	Repository string
}

func (t Target) label() string {
	if t.URL == "" {
		return t.Dir
	}
	return gitops.RedactURL(t.URL)
}

// resolveTargets turns Dir or Clones (after Shard) into checkouts.
func (s *Server) resolveTargets() ([]Target, error) {
	o := s.o
	if o.Shard.Auto {
		return nil, fmt.Errorf("shard %s: its index is not known yet (Shard.Resolve)", o.Shard)
	}
	if len(o.Clones) == 0 {
		if o.Shard != (Shard{}) {
			return nil, errors.New("a shard splits the list of clones; there are none")
		}
		return []Target{{Dir: o.Dir}}, nil
	}
	urls := o.Clones
	if o.Shard != (Shard{}) {
		urls = o.Shard.keep(urls)
		s.log.Info("shard", "index", o.Shard.Index, "of", o.Shard.Count, "repositories", len(urls), "listed", len(o.Clones))
	}
	var ts []Target
	for _, u := range urls {
		name, err := gitops.RepositoryFromURL(u)
		if err != nil {
			return nil, fmt.Errorf("clone: %w", err)
		}
		ts = append(ts, Target{URL: u, Repository: name})
	}
	work := o.Workdir
	if work == "" {
		dir, err := os.MkdirTemp("", "imagebot-serve-")
		if err != nil {
			return nil, err
		}
		work, s.cleanup = dir, func() { os.RemoveAll(dir) }
	}
	for i, t := range ts {
		// owner_name for people looking at the disk, the hash so that two
		// hosts serving the same owner/name never share a directory.
		ts[i].Dir = filepath.Join(work, fmt.Sprintf("%s_%08x", strings.ReplaceAll(t.Repository, "/", "_"), fnv32a(t.URL)))
	}
	return ts, nil
}

func fnv32a(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}
