package azure

import "testing"

// TestParseRemote: every clone URL form Azure Repos hands out gives the
// collection URL and Project/repo; a Server under a path keeps its path.
func TestParseRemote(t *testing.T) {
	for in, want := range map[string]Remote{
		"https://dev.azure.com/contoso/Fabrikam%20Fiber/_git/deploy":         {"https://dev.azure.com/contoso", "Fabrikam Fiber/deploy"},
		"https://contoso@dev.azure.com/contoso/Fabrikam%20Fiber/_git/deploy": {"https://dev.azure.com/contoso", "Fabrikam Fiber/deploy"},
		"https://contoso.visualstudio.com/Web/_git/deploy":                   {"https://dev.azure.com/contoso", "Web/deploy"},
		"git@ssh.dev.azure.com:v3/contoso/Web/deploy":                        {"https://dev.azure.com/contoso", "Web/deploy"},
		"https://tfs.example.com/tfs/DefaultCollection/Web/_git/deploy":      {"https://tfs.example.com/tfs/DefaultCollection", "Web/deploy"},
	} {
		got, err := ParseRemote(in)
		if err != nil || got != want {
			t.Errorf("%s: %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"https://github.com/o/r", "https://dev.azure.com/_git/x", "git@ssh.dev.azure.com:v3/contoso/x"} {
		if got, err := ParseRemote(bad); err == nil {
			t.Errorf("%s: %+v, want an error", bad, got)
		}
	}
}
