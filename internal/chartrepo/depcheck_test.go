package chartrepo_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestProductNeverImportsDoubles: the test doubles under internal/testing
// (helmrepotest) are never part of the imagebot binary.
func TestProductNeverImportsDoubles(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/imagebot/imagebot/cmd/bot").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.Contains(p, "/internal/testing/") {
			t.Errorf("cmd/bot depends on %s", p)
		}
	}
}
