package main

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestOneMajorPerModule: the release binary links one major version of each
// module. Two majors of one client (go-github v60 for our code and v88
// through ghinstallation) double its size in the binary and let types that
// look the same fail to convert; a dependency that drags in a second major is
// pinned to a release that shares ours.
func TestOneMajorPerModule(t *testing.T) {
	// Majors that are different libraries in all but name: kyaml parses
	// with go.yaml.in/yaml/v2's fork, imagebot writes with v3.
	allowed := map[string]bool{"go.yaml.in/yaml": true}
	major := regexp.MustCompile(`/v[0-9]+$`)
	majors := map[string][]string{}
	for _, p := range moduleGraph(t).deps("github.com/imagebot/imagebot/cmd/bot") {
		if p.Module == nil {
			continue // the standard library
		}
		mod := p.Module.Path
		base := major.ReplaceAllString(mod, "")
		if !slices.Contains(majors[base], mod) {
			majors[base] = append(majors[base], mod)
		}
	}
	for base, mods := range majors {
		if len(mods) > 1 && !allowed[base] {
			slices.Sort(mods)
			t.Errorf("cmd/bot links %d majors of %s: %s", len(mods), base, strings.Join(mods, ", "))
		}
	}
}
