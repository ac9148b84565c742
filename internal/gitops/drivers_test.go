package gitops

// The tests run against the fake hosts through their drivers, which the
// program links in cmd/bot (forge/hosts).
import _ "github.com/imagebot/imagebot/internal/gitops/forge/hosts"
