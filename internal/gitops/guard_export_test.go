package gitops

import (
	"net/http"
	"time"
)

// APIHTTPClient is the HTTP client Open makes for o's API at api.
func APIHTTPClient(o Options, api string) *http.Client {
	return apiClient(retryingClient(time.Second, realClock{}, o.withDefaults().Logger, apiGuard(o, api)))
}
