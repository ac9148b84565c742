package signature_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLayering keeps the gate self-contained: the registry client
// implements Fetcher, the plan calls Verify; the package reaches neither,
// nor any network client of its own but the TUF fetch of TrustedRoot.
func TestLayering(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	forbidden := []string{
		"github.com/imagebot/imagebot/internal/registry",
		"github.com/imagebot/imagebot/internal/plan",
		"github.com/imagebot/imagebot/internal/policy",
		"github.com/imagebot/imagebot/internal/config",
		"github.com/google/go-containerregistry/pkg/v1/remote",
		"github.com/go-git/",
		"github.com/google/go-github/",
	}
	for dep := range strings.FieldsSeq(string(out)) {
		for _, bad := range forbidden {
			if strings.HasPrefix(dep, bad) {
				t.Errorf("internal/signature depends on %s", dep)
			}
		}
	}
}
