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

	"golang.org/x/sync/semaphore"
)

// Result is what a scan found.
type Result struct {
	// Refs are the image references. Chart versions are apart, in
	// Charts, so that every stage that handles images sees only images.
	Refs     []Ref
	Charts   []Ref     // chart versions (Ref.Chart set) and git tags (Ref.Git set)
	Skipped  []Skipped // values where a reference belongs that are not usable ones
	Problems []Problem
	Files    int // files looked at
}

// fileResult is one file's Result, with what FS needs of it beyond the
// file: its kustomization, when it is one, for the renaming across files
// (kustomizegraph.go).
type fileResult struct {
	Result
	kust      *kustomization
	sources   []fluxSource
	chartRefs []chartRef
	unnamed   []unnamedSkip // in Skipped, named again with every file's sources
}

// Dir scans every YAML file below root that include accepts; see FS.
func Dir(ctx context.Context, root string, include func(rel string) bool, opts ...Option) (Result, error) {
	res, err := FS(ctx, os.DirFS(root), include, opts...)
	if err != nil {
		return Result{}, fmt.Errorf("scan %s: %w", root, err)
	}
	return res, nil
}

// FS scans every YAML file of fsys that include accepts (include gets slash
// paths relative to the root of fsys; nil means every *.yaml and *.yml, and the same behind a
// template suffix: .j2, .tmpl, .tpl, and Dockerfiles).
// `.git` is never entered. fsys may be a directory (os.DirFS) or a git tree,
// so that `run` plans from exactly the commit it will commit onto. Files are
// read and parsed concurrently; the result is sorted by file and position,
// so it does not depend on scheduling.
//
// A file above the size cap (WithMaxFileSize, DefaultMaxFileSize) is read
// no further than the cap and becomes a Problem wrapping ErrTooLarge. The
// files in flight at once hold at most two caps of bytes together (a parsed
// file takes up to ~45 times its size), so memory is bounded by the cap,
// not by the number of cores.
func FS(ctx context.Context, fsys fs.FS, include func(rel string) bool, opts ...Option) (Result, error) {
	o := newOptions(opts)
	if include == nil {
		include = func(rel string) bool {
			return strings.HasSuffix(rel, ".yaml") || strings.HasSuffix(rel, ".yml") || isTemplateFile(rel) || isDockerfile(rel)
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
	return scanFiles(ctx, fsys, files, o)
}

func scanFiles(ctx context.Context, fsys fs.FS, files []string, o options) (Result, error) {
	outs := make([]fileResult, len(files))
	budget := 2 * (o.maxFileSize + 1)
	mem := semaphore.NewWeighted(budget)
	work := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				outs[i] = scanOne(ctx, fsys, files[i], o, mem, budget)
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
	var kusts []*kustomization
	var sources []fluxSource
	var crefs []chartRef
	for _, r := range outs {
		sources = append(sources, r.sources...)
	}
	for _, r := range outs {
		nameSkipped(r.Skipped, r.unnamed, sources)
		res.Refs = append(res.Refs, r.Refs...)
		res.Charts = append(res.Charts, r.Charts...)
		crefs = append(crefs, r.chartRefs...)
		res.Skipped = append(res.Skipped, r.Skipped...)
		res.Problems = append(res.Problems, r.Problems...)
		if r.kust != nil {
			kusts = append(kusts, r.kust)
		}
	}
	res.renamed(kusts)
	var unresolved []Skipped
	res.Charts, unresolved = resolveSources(res.Charts, crefs, sources, true)
	res.Skipped = append(res.Skipped, unresolved...)
	sort.SliceStable(res.Charts, func(i, j int) bool { return less(res.Charts[i].Location, res.Charts[j].Location) })
	sort.SliceStable(res.Refs, func(i, j int) bool { return less(res.Refs[i].Location, res.Refs[j].Location) })
	sort.SliceStable(res.Skipped, func(i, j int) bool { return less(res.Skipped[i].Location, res.Skipped[j].Location) })
	sort.SliceStable(res.Problems, func(i, j int) bool { return less(res.Problems[i].Location, res.Problems[j].Location) })
	scrubResult(&res)
	return res, nil
}

// scanOne reads and scans one file while holding its share of the memory
// budget: its size as stat reports it, at most the cap.
func scanOne(ctx context.Context, fsys fs.FS, file string, o options, mem *semaphore.Weighted, budget int64) fileResult {
	// Stat before Open: a git tree's Open may load the blob, which must
	// wait for its share of the budget.
	weight := o.maxFileSize + 1
	var size int64
	if fi, err := fs.Stat(fsys, file); err == nil {
		size = fi.Size()
		weight = min(max(size, 1), weight)
	}
	weight = min(weight, budget)
	if err := mem.Acquire(ctx, weight); err != nil {
		return fileResult{} // cancelled: the caller returns ctx.Err()
	}
	defer mem.Release(weight)
	src, err := readFile(fsys, file, size, o.maxFileSize)
	if err != nil {
		return fileResult{Result: Result{Problems: []Problem{{Location: Location{File: file, Line: 1}, Err: err}}}}
	}
	return scanFile(file, src)
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
