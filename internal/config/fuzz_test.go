package config

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds arbitrary bytes to Parse: it must never panic, a failure
// must be *Errors naming the file, and a config that loads must be usable
// as it is (For, GroupFor, EnvironmentFor and Included never meet an
// invalid glob, an identity regexp compiles).
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.yaml")
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("policies: [&a {match: 'a.io/**'}, *a, {<<: *a, allow: minor}]"))
	f.Add([]byte("policies: [&a {<<: *a, match: 'a.io/x'}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("f.yaml", data)
		if err != nil {
			var errs *Errors
			if !errors.As(err, &errs) || len(*errs) == 0 {
				t.Fatalf("Parse error %T %v is not a non-empty *Errors", err, err)
			}
			for _, e := range *errs {
				if e.File != "f.yaml" || e.Msg == "" {
					t.Fatalf("bad error %#v", e)
				}
			}
			return
		}
		for _, p := range c.Policies {
			r := c.For(p.Match, "f.yaml")
			if r.Signature != nil {
				if _, err := r.Signature.IdentityRegexp(); err != nil {
					t.Fatalf("identity that loaded does not compile: %v", err)
				}
			}
		}
		for _, g := range c.Groups {
			for _, m := range g.Match {
				c.GroupFor(m)
			}
		}
		for _, e := range c.Environments {
			for _, p := range e.Paths {
				c.EnvironmentFor(p)
			}
		}
		c.Prepull.Matches("ghcr.io/acme/x")
		c.Included("apps/x.yaml")
		if len(c.Paths) == 0 || c.Git.BranchPrefix == "" || c.Git.CommitMessage == "" {
			t.Fatalf("defaults missing: %+v", c)
		}
		if _, err := c.Git.Message(sampleMessage); err != nil {
			t.Fatalf("template that loaded does not render: %v", err)
		}
	})
}
