package job

import (
	"strings"
	"testing"

	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// TestAzureNotYet: --forge azure and AZURE_DEVOPS_TOKEN are refused by
// name until run reaches the Azure DevOps driver, rather than run as
// GitHub; origin on dev.azure.com alone leaves the run as it was.
func TestAzureNotYet(t *testing.T) {
	for _, f := range []Forge{{Kind: forge.Azure}, {Env: ForgeEnv{AzureToken: true}}, {Env: ForgeEnv{AzureRepos: true}}} {
		if err := ForgeSupported(f, ""); err == nil || !strings.Contains(err.Error(), "Azure DevOps") {
			t.Errorf("%+v: %v", f, err)
		}
	}
	if err := ForgeSupported(Forge{}, "https://dev.azure.com/contoso/Web/_git/deploy"); err != nil {
		t.Errorf("origin on dev.azure.com alone: %v", err)
	}
}
