package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// The layering tests ask `go list` about the import graph: before, each
// rule and test ran its own (a process each, a second of CPU among them
// all on two cores); the graph of every package of the module and their
// dependencies is now listed once per test binary and each question is
// answered from it, as `go list -deps` answers it: the packages a package
// imports, directly or through another, standard library included.

// listedPackage is a package as `go list -json` reports it.
type listedPackage struct {
	ImportPath string
	Imports    []string
	Module     *struct{ Path string }
}

type importGraph map[string]*listedPackage

var (
	graphOnce sync.Once
	graph     importGraph
	graphErr  error
)

// moduleGraph is every package of the module and everything they import.
func moduleGraph(t *testing.T) importGraph {
	t.Helper()
	graphOnce.Do(func() {
		out, err := exec.Command("go", "list", "-deps", "-json=ImportPath,Imports,Module", "../../...").Output()
		if err != nil {
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				err = fmt.Errorf("%w: %s", err, exit.Stderr)
			}
			graphErr = fmt.Errorf("go list -deps ../../...: %w", err)
			return
		}
		g := importGraph{}
		dec := json.NewDecoder(strings.NewReader(string(out)))
		for dec.More() {
			p := &listedPackage{}
			if err := dec.Decode(p); err != nil {
				graphErr = err
				return
			}
			g[p.ImportPath] = p
		}
		graph = g
	})
	if graphErr != nil {
		t.Fatal(graphErr)
	}
	return graph
}

// deps is pkg and every package it imports, directly or not, in the order
// `go list -deps` lists them (dependencies before the packages that import
// them).
func (g importGraph) deps(pkg string) []*listedPackage {
	var out []*listedPackage
	seen := map[string]bool{}
	var visit func(string)
	visit = func(p string) {
		if seen[p] {
			return
		}
		seen[p] = true
		lp, ok := g[p]
		if !ok {
			return // "C", or a package go list did not load
		}
		for _, imp := range lp.Imports {
			visit(imp)
		}
		out = append(out, lp)
	}
	visit(pkg)
	return out
}
