package main

import (
	"io"
	"testing"

	"github.com/imagebot/imagebot/internal/job"
)

// TestEnvironAzure: AZURE_DEVOPS_TOKEN wins over the job token
// SYSTEM_ACCESSTOKEN, which serves when the pipeline maps only it; the
// pipeline's collection, project and repository are read as set, and
// handed to job unchanged.
func TestEnvironAzure(t *testing.T) {
	vars := map[string]string{"SYSTEM_ACCESSTOKEN": "eyJ.job.token", "SYSTEM_COLLECTIONURI": "https://dev.azure.com/contoso/",
		"SYSTEM_TEAMPROJECT": "Fabrikam Fiber", "BUILD_REPOSITORY_NAME": "deploy", "BUILD_REPOSITORY_PROVIDER": "TfsGit"}
	lookup := func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
	want := job.Azure{Token: "eyJ.job.token", Collection: "https://dev.azure.com/contoso/", Project: "Fabrikam Fiber", Repository: "deploy"}
	env := readEnviron(lookup)
	if env.Azure != want || !env.Forge.AzureRepos || env.Forge.AzureToken {
		t.Errorf("in a pipeline: %+v %+v", env.Azure, env.Forge)
	}
	o := newCommonOptions(&factory{IO: iostreams{Out: io.Discard, ErrOut: io.Discard}, Env: env})
	if jo, err := o.hostJob(false); err != nil || jo.Azure != want {
		t.Errorf("hostJob: %+v %v", jo.Azure, err)
	}
	vars["AZURE_DEVOPS_TOKEN"] = "pat"
	if env := readEnviron(lookup); env.Azure.Token != "pat" || !env.Forge.AzureToken {
		t.Errorf("with a PAT: %+v", env.Azure)
	}
}
