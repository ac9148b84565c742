package main

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// TestLayering keeps the pipeline one-way: scan -> registry -> policy ->
// plan -> rewrite -> gitops. A stage never imports a later one (checked on
// direct imports), and no stage before gitops reaches git or GitHub, even
// through another package (checked on all dependencies).
func TestLayering(t *testing.T) {
	const mod = "github.com/imagebot/imagebot/"
	forbidden := map[string][]string{
		"internal/config":   {mod + "internal/", "github.com/go-git/", "github.com/google/go-github/"},
		"internal/scan":     {mod + "internal/registry", mod + "internal/policy", mod + "internal/plan", mod + "internal/rewrite", mod + "internal/gitops", "github.com/go-git/", "github.com/google/go-github/", "net/http"},
		"internal/registry": {mod + "internal/policy", mod + "internal/plan", mod + "internal/rewrite", mod + "internal/gitops", mod + "internal/scan", "github.com/go-git/", "github.com/google/go-github/"},
		"internal/policy":   {mod + "internal/", "github.com/go-git/", "github.com/google/go-github/", "net/http", "os/exec"},
		"internal/plan":     {mod + "internal/rewrite", mod + "internal/gitops", "github.com/go-git/", "github.com/google/go-github/"},
		"internal/rewrite":  {mod + "internal/gitops", mod + "internal/registry", "github.com/go-git/", "github.com/google/go-github/", "net/http"},
	}
	for pkg, bad := range forbidden {
		out, err := exec.Command("go", "list", "-deps", "-json=ImportPath,Imports", "../../"+pkg).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		dec := json.NewDecoder(strings.NewReader(string(out)))
		for dec.More() {
			var p struct {
				ImportPath string
				Imports    []string
			}
			if err := dec.Decode(&p); err != nil {
				t.Fatal(err)
			}
			if p.ImportPath == mod+pkg {
				for _, imp := range p.Imports {
					for _, b := range bad {
						if strings.HasPrefix(imp, b) {
							t.Errorf("%s imports %s", pkg, imp)
						}
					}
				}
			}
			for _, b := range []string{"github.com/go-git/", "github.com/google/go-github/"} {
				if strings.HasPrefix(p.ImportPath, b) {
					t.Errorf("%s depends on %s", pkg, p.ImportPath)
				}
			}
		}
	}
}
