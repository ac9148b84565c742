package serve

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestShard(t *testing.T) {
	for _, tc := range []struct {
		spec, env string
		i, n      int
		err       string
	}{
		{spec: "0/1", i: 0, n: 1},
		{spec: "3/4", i: 3, n: 4},
		{spec: "auto/4", env: "2", i: 2, n: 4},
		{spec: "auto/4", err: "JOB_COMPLETION_INDEX is not set"},
		{spec: "auto/4", env: "4", err: "want 0 to 3"},
		{spec: "4/4", err: "want 0 to 3"},
		{spec: "-1/4", err: "want 0 to 3"},
		{spec: "0/0", err: "at least 1"},
		{spec: "1", err: "want i/n"},
		{spec: "x/2", err: "want 0 to 1"},
	} {
		sh, err := ParseShard(tc.spec)
		if err == nil {
			sh, err = sh.Resolve(tc.env)
		}
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseShard(%q) with index %q = %v, want an error with %q", tc.spec, tc.env, err, tc.err)
			}
			continue
		}
		if err != nil || sh.Index != tc.i || sh.Count != tc.n || sh.Auto {
			t.Errorf("ParseShard(%q) with index %q = %+v, %v; want %d of %d", tc.spec, tc.env, sh, err, tc.i, tc.n)
		}
	}

	// The shares split the list: every URL in exactly one, the same every
	// time, and none moves when another URL joins the list.
	var urls []string
	for _, c := range "abcdefghijklmnopqrstuvwxyz" {
		urls = append(urls, "https://github.com/acme/"+string(c))
	}
	var all []string
	for i := range 4 {
		got := Shard{Index: i, Count: 4}.keep(urls)
		if len(got) == 0 || len(got) == len(urls) {
			t.Errorf("share %d of 4 holds %d of %d URLs: not a split", i, len(got), len(urls))
		}
		if diff := cmp.Diff(got, Shard{Index: i, Count: 4}.keep(urls)); diff != "" {
			t.Errorf("share %d differs between calls:\n%s", i, diff)
		}
		grown := Shard{Index: i, Count: 4}.keep(append(slices.Clone(urls), "https://github.com/acme/new"))
		if diff := cmp.Diff(got, slices.DeleteFunc(grown, func(u string) bool { return u == "https://github.com/acme/new" })); diff != "" {
			t.Errorf("share %d changed when a URL joined:\n%s", i, diff)
		}
		all = append(all, got...)
	}
	slices.Sort(all)
	if diff := cmp.Diff(urls, all); diff != "" {
		t.Errorf("union of the shares (-want +got):\n%s", diff)
	}
}
