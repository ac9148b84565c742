package gitops

import (
	"net/http"
	"time"

	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// APIHTTPClient is the HTTP client Open makes for o's API at api.
func APIHTTPClient(o Options, api string) *http.Client {
	return forge.APIClient(forge.RetryingClient(time.Second, forge.RealClock{}, o.withDefaults().Logger, forge.APIGuard(api, o.URL)))
}
