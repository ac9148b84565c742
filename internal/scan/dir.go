package scan

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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

// Dir scans every YAML file below root that include accepts (include gets
// slash paths relative to root; nil means every *.yaml and *.yml). `.git` is
// never entered. Files are read and parsed concurrently; the result is sorted
// by file and position, so it does not depend on scheduling.
func Dir(ctx context.Context, root string, include func(rel string) bool) (Result, error) {
	if include == nil {
		include = func(rel string) bool {
			return strings.HasSuffix(rel, ".yaml") || strings.HasSuffix(rel, ".yml")
		}
	}
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.Type().IsRegular() && include(rel) {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		return Result{}, fmt.Errorf("scan %s: %w", root, err)
	}
	return scanFiles(ctx, root, files)
}

func scanFiles(ctx context.Context, root string, files []string) (Result, error) {
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
				src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(files[i])))
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
