package forge_test

import (
	"slices"
	"testing"

	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// TestChooseBitbucket: Bitbucket Pipelines (Cloud only), BITBUCKET_TOKEN
// and origin on bitbucket.org choose Bitbucket Cloud; BITBUCKET_SERVER_TOKEN
// chooses Data Center, whose host name says nothing; the CI wins over a
// token variable, a token variable over origin, as for every host.
func TestChooseBitbucket(t *testing.T) {
	for _, tc := range []struct {
		env    forge.Env
		remote string
		want   forge.Kind
		why    string
	}{
		{forge.Env{BitbucketPipelines: true}, "", forge.Bitbucket, "BITBUCKET_WORKSPACE"},
		{forge.Env{BitbucketPipelines: true, GitLabToken: true}, "", forge.Bitbucket, "BITBUCKET_WORKSPACE"},
		{forge.Env{GitHubActions: true, BitbucketPipelines: true}, "", forge.GitHub, "GITHUB_ACTIONS"},
		{forge.Env{BitbucketToken: true}, "https://github.com/acme/gitops.git", forge.Bitbucket, "BITBUCKET_TOKEN"},
		{forge.Env{BitbucketServerToken: true}, "https://bitbucket.org/acme/gitops.git", forge.BitbucketServer, "BITBUCKET_SERVER_TOKEN"},
		{forge.Env{BitbucketServerToken: true}, "https://git.example.com/scm/ops/gitops.git", forge.BitbucketServer, "BITBUCKET_SERVER_TOKEN"},
		{forge.Env{GitLabToken: true, BitbucketToken: true}, "", forge.GitLab, "GITLAB_TOKEN"},
		{forge.Env{}, "https://jane@bitbucket.org/acme/gitops.git", forge.Bitbucket, "origin on bitbucket.org"},
		{forge.Env{}, "git@bitbucket.org:acme/gitops.git", forge.Bitbucket, "origin on bitbucket.org"},
		{forge.Env{}, "https://bitbucket.example.com/scm/ops/gitops.git", forge.GitHub, "the default"},
	} {
		if got := forge.Choose("", tc.env, tc.remote, false); got.Kind != tc.want || got.Why != tc.why {
			t.Errorf("%+v %s: %+v, want %s (%s)", tc.env, tc.remote, got, tc.want, tc.why)
		}
	}
	for _, k := range []forge.Kind{forge.Bitbucket, forge.BitbucketServer} {
		if c := forge.Choose(k, forge.Env{GitHubActions: true}, "", true); c.Kind != k || c.Why != "--forge "+string(k) {
			t.Errorf("--forge %s: %+v", k, c)
		}
		if !slices.Contains(forge.Kinds, k) {
			t.Errorf("--forge %s is not among forge.Kinds %v", k, forge.Kinds)
		}
	}
}
