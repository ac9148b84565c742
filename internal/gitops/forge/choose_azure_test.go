package forge_test

import (
	"testing"

	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// TestChooseAzure: Azure Pipelines on an Azure Repos repository (not a
// GitHub one it builds), AZURE_DEVOPS_TOKEN, and origin on Azure DevOps
// Services in each form choose Azure DevOps; a GitHub repository built in
// Azure Pipelines stays GitHub's.
func TestChooseAzure(t *testing.T) {
	for _, tc := range []struct {
		env    forge.Env
		remote string
		want   forge.Kind
		why    string
	}{
		{forge.Env{AzureRepos: true}, "", forge.Azure, "BUILD_REPOSITORY_PROVIDER=TfsGit"},
		{forge.Env{AzureToken: true}, "", forge.Azure, "AZURE_DEVOPS_TOKEN"},
		{forge.Env{}, "https://contoso@dev.azure.com/contoso/Web/_git/deploy", forge.Azure, "origin on dev.azure.com"},
		{forge.Env{}, "git@ssh.dev.azure.com:v3/contoso/Web/deploy", forge.Azure, "origin on ssh.dev.azure.com"},
		{forge.Env{}, "https://contoso.visualstudio.com/Web/_git/deploy", forge.Azure, "origin on contoso.visualstudio.com"},
		{forge.Env{}, "https://github.com/acme/gitops.git", forge.GitHub, "origin on github.com"},
	} {
		if got := forge.Choose("", tc.env, tc.remote, false); got.Kind != tc.want || got.Why != tc.why {
			t.Errorf("%+v %s: %+v, want %s (%s)", tc.env, tc.remote, got, tc.want, tc.why)
		}
	}
}
