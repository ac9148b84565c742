package gitops

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/memory"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/google/go-containerregistry/pkg/name"

	"github.com/imagebot/imagebot/internal/scan"
)

// entry is one tree entry of a test commit: a blob's content, or a
// submodule's commit when mode is filemode.Submodule.
type entry struct {
	mode    filemode.FileMode
	content string
}

// commitOf stores a commit whose tree holds files (slash paths).
func commitOf(t *testing.T, st storer.EncodedObjectStorer, files map[string]entry, when time.Time) *object.Commit {
	t.Helper()
	type dir struct {
		files map[string]entry
		dirs  map[string]*dir
	}
	newDir := func() *dir { return &dir{files: map[string]entry{}, dirs: map[string]*dir{}} }
	root := newDir()
	for p, e := range files {
		d := root
		for {
			head, rest, nested := cutSlash(p)
			if !nested {
				d.files[head] = e
				break
			}
			if d.dirs[head] == nil {
				d.dirs[head] = newDir()
			}
			d, p = d.dirs[head], rest
		}
	}
	var write func(d *dir) plumbing.Hash
	write = func(d *dir) plumbing.Hash {
		var tree object.Tree
		for name, e := range d.files {
			h := plumbing.NewHash(e.content)
			if e.mode != filemode.Submodule {
				var err error
				if h, err = writeBlob(st, []byte(e.content)); err != nil {
					t.Fatal(err)
				}
			}
			tree.Entries = append(tree.Entries, object.TreeEntry{Name: name, Mode: e.mode, Hash: h})
		}
		for name, sub := range d.dirs {
			tree.Entries = append(tree.Entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: write(sub)})
		}
		sortEntries(tree.Entries)
		obj := st.NewEncodedObject()
		if err := tree.Encode(obj); err != nil {
			t.Fatal(err)
		}
		h, err := st.SetEncodedObject(obj)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	who := object.Signature{Name: "t", Email: "t@example.invalid", When: when}
	c := &object.Commit{Author: who, Committer: who, Message: "test", TreeHash: write(root)}
	obj := st.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		t.Fatal(err)
	}
	h, err := st.SetEncodedObject(obj)
	if err != nil {
		t.Fatal(err)
	}
	c, err = object.GetCommit(st, h)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func cutSlash(p string) (string, string, bool) {
	for i := range len(p) {
		if p[i] == '/' {
			return p[:i], p[i+1:], true
		}
	}
	return p, "", false
}

// sortEntries orders entries as git does: by name, a directory as if its
// name ended in "/".
func sortEntries(es []object.TreeEntry) {
	key := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	for i := 1; i < len(es); i++ {
		for j := i; j > 0 && key(es[j]) < key(es[j-1]); j-- {
			es[j], es[j-1] = es[j-1], es[j]
		}
	}
}

var testTree = map[string]entry{
	"README.md":                {filemode.Regular, "hello\n"},
	"apps/web/deployment.yaml": {filemode.Regular, "image: nginx:1.25.3\n"},
	"apps/web.yaml":            {filemode.Regular, "image: redis:7.2.4\n"}, // git sorts "web.yaml" before "web/"
	"apps/web-cron.yaml":       {filemode.Regular, "image: busybox:1.36.0\n"},
	"bin/deploy.sh":            {filemode.Executable, "#!/bin/sh\n"},
	"empty.yaml":               {filemode.Regular, ""},
	"apps/link.yaml":           {filemode.Symlink, "web.yaml"},
	"vendor/lib":               {filemode.Submodule, "3f9a2c1e0b8d7c6a5f4e3d2c1b0a9f8e7d6c5b4a"},
}

func TestTreeFS(t *testing.T) {
	st := memory.NewStorage()
	when := time.Date(2024, 6, 12, 10, 0, 0, 0, time.UTC)
	fsys, err := newTreeFS(st, commitOf(t, st, testTree, when))
	if err != nil {
		t.Fatal(err)
	}
	// fstest checks Open, ReadDir (sorted, in pieces and at once),
	// ReadFile and Stat against each other, and that nothing else is there.
	if err := fstest.TestFS(fsys, "README.md", "apps/web/deployment.yaml", "apps/web.yaml",
		"apps/web-cron.yaml", "bin/deploy.sh", "empty.yaml"); err != nil {
		t.Fatal(err)
	}

	// Symlinks and submodules are no files to scan: they are not there,
	// and a directory of nothing else is empty.
	for _, name := range []string{"apps/link.yaml", "vendor/lib"} {
		if _, err := fs.Stat(fsys, name); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Stat(%s) = %v, want not exist", name, err)
		}
	}
	if es, err := fs.ReadDir(fsys, "vendor"); err != nil || len(es) != 0 {
		t.Errorf("vendor: %v, %v; want an empty directory", es, err)
	}
	info, err := fs.Stat(fsys, "bin/deploy.sh")
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode() != 0o755 || !info.ModTime().Equal(when) || info.Size() != int64(len("#!/bin/sh\n")) {
		t.Errorf("bin/deploy.sh: mode %v, time %v, size %d", info.Mode(), info.ModTime(), info.Size())
	}
	if info, err := fs.Stat(fsys, "apps"); err != nil || !info.IsDir() || info.Mode() != fs.ModeDir|0o755 {
		t.Errorf("apps: %v, %v", info, err)
	}
	for _, bad := range []string{"/apps", "apps/", "../x", "apps//web.yaml"} {
		if _, err := fsys.Open(bad); err == nil {
			t.Errorf("Open(%q) succeeded", bad)
		}
	}
	if _, err := fs.ReadFile(fsys, "apps"); err == nil {
		t.Error("ReadFile of a directory succeeded")
	}
	if _, err := fs.ReadDir(fsys, "README.md"); err == nil {
		t.Error("ReadDir of a file succeeded")
	}
}

// TestTreeFSScan: scan reads a tree as it reads a directory, concurrently
// (run with -race), and finds exactly the regular YAML files' references.
func TestTreeFSScan(t *testing.T) {
	st := memory.NewStorage()
	files := map[string]entry{}
	for k, v := range testTree {
		files[k] = v
	}
	for i := range 200 {
		files[fmt.Sprintf("many/%c/%d.yaml", 'a'+i%26, i)] = entry{filemode.Regular, fmt.Sprintf("image: nginx:1.25.%d\n", i)}
	}
	fsys, err := newTreeFS(st, commitOf(t, st, files, time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	results := make([]scan.Result, 4)
	for i := range results {
		wg.Go(func() {
			res, err := scan.FS(context.Background(), fsys, nil)
			if err != nil {
				t.Error(err)
			}
			results[i] = res
		})
	}
	wg.Wait()
	var got []string
	for _, r := range results[0].Refs {
		got = append(got, r.Location.File)
	}
	if len(got) != 203 || got[0] != "apps/web-cron.yaml" || got[1] != "apps/web.yaml" || got[2] != "apps/web/deployment.yaml" {
		t.Errorf("%d references, first %v", len(got), got[:min(3, len(got))])
	}
	for _, r := range results[1:] {
		if d := cmp.Diff(results[0], r, cmpopts.EquateComparable(name.Repository{})); d != "" {
			t.Errorf("scans differ:\n%s", d)
		}
	}
}
