package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/sync/errgroup"

	"github.com/imagebot/imagebot/fixtures"
)

// regmany N DIR gives a script a repository with N updates: it pushes
// ghcr.io/acme/svc-01 … svc-N to the script's registry, each with tags
// 1.0.0 and 1.1.0, and writes DIR/apps/svc-NN.yaml, a Deployment of the
// older one. The images are fixtures' smallest (one platform, one layer),
// so that 70 of them cost a fraction of a second.
func cmdRegMany(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: regmany n dir")
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 1 || n > 999 {
		ts.Fatalf("regmany: %q is not a count from 1 to 999", args[0])
	}
	reg, _ := ts.Value(registryKey{}).(*fixtures.Registry)
	apps := ts.MkAbs(filepath.Join(args[1], "apps"))
	ts.Check(os.MkdirAll(apps, 0o755))
	var g errgroup.Group
	g.SetLimit(8)
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("svc-%02d", i)
		manifest := fmt.Sprintf("kind: Deployment\nmetadata:\n  name: %s\nspec:\n  template:\n    spec:\n      containers:\n        - name: %s\n          image: ghcr.io/acme/%s:1.0.0\n", name, name, name)
		ts.Check(os.WriteFile(filepath.Join(apps, name+".yaml"), []byte(manifest), 0o644))
		for _, tag := range []string{"1.0.0", "1.1.0"} {
			g.Go(func() error {
				_, err := reg.Push(context.Background(), "ghcr.io/acme/"+name, tag)
				return err
			})
		}
	}
	ts.Check(g.Wait())
}
