package forge

import "testing"

// TestParseAzureRemote: every clone URL form Azure Repos hands out gives the
// collection URL and Project/repo; a Server under a path keeps its path.
func TestParseAzureRemote(t *testing.T) {
	for in, want := range map[string]AzureRemote{
		"https://dev.azure.com/contoso/Fabrikam%20Fiber/_git/deploy":         {"https://dev.azure.com/contoso", "Fabrikam Fiber/deploy"},
		"https://contoso@dev.azure.com/contoso/Fabrikam%20Fiber/_git/deploy": {"https://dev.azure.com/contoso", "Fabrikam Fiber/deploy"},
		"https://contoso.visualstudio.com/Web/_git/deploy":                   {"https://dev.azure.com/contoso", "Web/deploy"},
		"git@ssh.dev.azure.com:v3/contoso/Web/deploy":                        {"https://dev.azure.com/contoso", "Web/deploy"},
		"https://tfs.example.com/tfs/DefaultCollection/Web/_git/deploy":      {"https://tfs.example.com/tfs/DefaultCollection", "Web/deploy"},
	} {
		got, err := ParseAzureRemote(in)
		if err != nil || got != want {
			t.Errorf("%s: %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"https://github.com/o/r", "https://dev.azure.com/_git/x", "git@ssh.dev.azure.com:v3/contoso/x"} {
		if got, err := ParseAzureRemote(bad); err == nil {
			t.Errorf("%s: %+v, want an error", bad, got)
		}
	}
}

// TestAzureCollection: SYSTEM_COLLECTIONURI's trailing slash goes, and an
// organisation on Services' old host is the same one on dev.azure.com;
// a Server collection keeps its host and path.
func TestAzureCollection(t *testing.T) {
	for in, want := range map[string]string{
		"https://dev.azure.com/contoso/":                     "https://dev.azure.com/contoso",
		"https://contoso.visualstudio.com/":                  "https://dev.azure.com/contoso",
		"https://Contoso.VisualStudio.com":                   "https://dev.azure.com/contoso",
		"https://tfs.example.com/tfs/DefaultCollection/":     "https://tfs.example.com/tfs/DefaultCollection",
		"https://contoso.visualstudio.com/DefaultCollection": "https://contoso.visualstudio.com/DefaultCollection",
	} {
		if got := AzureCollection(in); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}
