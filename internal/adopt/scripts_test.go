package adopt

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/imagebot/imagebot/internal/config"
)

// The CLI scripts (cmd/bot/testdata/script/init_*.txtar) check what each
// init prints and plans; this runs the same repositories through the
// package, without a registry, and checks what every converter writes is a
// configuration imagebot loads, and that what it could not convert is
// said rather than dropped.
func TestScriptRepositories(t *testing.T) {
	for _, c := range []struct {
		script string
		run    func(context.Context, fs.FS, Options) (*Result, error)
		notes  []string // a substring of some note, each
	}{
		{"init_repository.txtar", Init, nil},
		{"init_from_flux.txtar", FromFlux, []string{"numerical order desc"}},
		{"init_from_renovate.txtar", FromRenovate, []string{"matchManagers github-actions", "other datasources"}},
	} {
		t.Run(strings.TrimSuffix(c.script, ".txtar"), func(t *testing.T) {
			fsys := scriptRepo(t, c.script)
			res, err := c.run(t.Context(), fsys, Options{ActionRef: "v1"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := config.Parse(".imagebot.yaml", res.Config); err != nil {
				t.Errorf("the written configuration does not load: %v\n%s", err, res.Config)
			}
			if !strings.Contains(string(res.Workflow), "imagebot/imagebot@v1") {
				t.Errorf("workflow does not use the action at v1:\n%s", res.Workflow)
			}
			var said []string
			for _, n := range res.Notes {
				said = append(said, n.String())
			}
			for _, want := range c.notes {
				if !strings.Contains(strings.Join(said, "\n"), want) {
					t.Errorf("no note says %q; notes:\n%s", want, strings.Join(said, "\n"))
				}
			}
			dir := t.TempDir()
			written, err := res.Write(dir, false)
			if err != nil {
				t.Fatal(err)
			}
			if len(written) != 2 {
				t.Errorf("wrote %v, want the config and the workflow", written)
			}
			if _, err := config.Find(dir); err != nil {
				t.Errorf("the written configuration is not found: %v", err)
			}
			if _, err := res.Write(dir, false); err == nil {
				t.Error("a second Write without force overwrote the files")
			}
		})
	}
}

// scriptRepo is the repo/ directory of a CLI script's archive.
func scriptRepo(t *testing.T, script string) fs.FS {
	t.Helper()
	a, err := txtar.ParseFile(filepath.Join("..", "..", "cmd", "bot", "testdata", "script", script))
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{}
	for _, f := range a.Files {
		if p, ok := strings.CutPrefix(f.Name, "repo/"); ok {
			fsys[p] = &fstest.MapFile{Data: f.Data}
		}
	}
	if len(fsys) == 0 {
		t.Fatalf("%s has no repo/ files", script)
	}
	return fsys
}
