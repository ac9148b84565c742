package main

import (
	"fmt"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/job"
)

// checkServeHosts refuses, before anything is cloned or fetched with the
// token, a --clone URL or DIR's origin on another host than the server
// whose token it is (GitHub's, or the Gitea server's). Each run checks
// its own checkout again (job.Run).
func checkServeHosts(o *serveOptions, jo *job.Options) error {
	host := jo.ForgeHost()
	for _, u := range o.Clones {
		if err := host.CheckRemote(u); err != nil {
			return fmt.Errorf("--clone: %w", err)
		}
	}
	if len(o.Clones) > 0 {
		return nil
	}
	origin, err := gitops.OriginURL(o.Repo)
	if err != nil {
		return nil // no origin, no fetch: the run says what is missing
	}
	return host.CheckRemote(origin)
}
