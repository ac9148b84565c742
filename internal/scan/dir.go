package scan

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
)

// Result is what a scan of a directory found.
type Result struct {
	Refs     []Ref
	Problems []Problem
	Files    int // files read
}

// Dir scans every YAML file below root that include accepts; see FS.
func Dir(ctx context.Context, root string, include func(rel string) bool) (Result, error) {
	res, err := FS(ctx, os.DirFS(root), include)
	if err != nil {
		return Result{}, fmt.Errorf("scan %s: %w", root, err)
	}
	return res, nil
}

// FS scans every YAML file of fsys that include accepts (include gets slash
// paths relative to the root of fsys; nil means every *.yaml and *.yml).
// `.git` is never entered. fsys may be a directory (os.DirFS) or a git tree,
// so that `run` plans from exactly the commit it will commit onto. Files are
// read and parsed concurrently; the result is sorted by file and position,
// so it does not depend on scheduling.
func FS(ctx context.Context, fsys fs.FS, include func(rel string) bool) (Result, error) {
	if include == nil {
		include = func(rel string) bool {
			return strings.HasSuffix(rel, ".yaml") || strings.HasSuffix(rel, ".yml")
		}
	}
	var files []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && include(p) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return Result{}, err
	}
	return scanFiles(ctx, fsys, files)
}

func scanFiles(ctx context.Context, fsys fs.FS, files []string) (Result, error) {
	type out struct {
		refs     []Ref
		problems []Problem
	}
	outs := make([]out, len(files))
	work := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				src, err := fs.ReadFile(fsys, files[i])
				if err != nil {
					outs[i].problems = []Problem{{Location: Location{File: files[i]}, Err: err}}
					continue
				}
				outs[i].refs, outs[i].problems = File(files[i], src)
			}
		}()
	}
	for i := range files {
		if ctx.Err() != nil {
			break
		}
		work <- i
	}
	close(work)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	res := Result{Files: len(files)}
	for _, o := range outs {
		res.Refs = append(res.Refs, o.refs...)
		res.Problems = append(res.Problems, o.problems...)
	}
	sort.SliceStable(res.Refs, func(i, j int) bool { return less(res.Refs[i].Location, res.Refs[j].Location) })
	sort.SliceStable(res.Problems, func(i, j int) bool { return less(res.Problems[i].Location, res.Problems[j].Location) })
	return res, nil
}

func less(a, b Location) bool {
	if a.File != b.File {
		return a.File < b.File
	}
	if a.Line != b.Line {
		return a.Line < b.Line
	}
	return a.Col < b.Col
}
