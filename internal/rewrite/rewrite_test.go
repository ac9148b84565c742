package rewrite

import (
	"bufio"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/scan"
)

var update = flag.Bool("update", false, "rewrite golden files")

// readChanges reads "image tag [digest]" lines.
func readChanges(t *testing.T, path string) map[string][2]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := map[string][2]string{}
	s := bufio.NewScanner(f)
	for s.Scan() {
		fs := strings.Fields(s.Text())
		if len(fs) < 2 || strings.HasPrefix(fs[0], "#") {
			continue
		}
		v := [2]string{fs[1]}
		if len(fs) > 2 {
			v[1] = fs[2]
		}
		m[fs[0]] = v
	}
	return m
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// readDir returns every file below dir by relative path.
func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		m[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	return m
}

// TestGolden rewrites testdata/<case>/original as changes.txt says and
// compares the whole tree with testdata/<case>/expected.
func TestGolden(t *testing.T) {
	cases, _ := filepath.Glob(filepath.Join("testdata", "*", "changes.txt"))
	for _, c := range cases {
		dir := filepath.Dir(c)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			want := readChanges(t, c)
			work := t.TempDir()
			copyDir(t, filepath.Join(dir, "original"), work)
			res, err := scan.Dir(context.Background(), work, nil)
			if err != nil {
				t.Fatal(err)
			}
			var changes []plan.Change
			for _, r := range append(res.Refs, res.Charts...) {
				if v, ok := want[r.Image]; ok && r.Tag != "" {
					changes = append(changes, plan.Change{Ref: r, Tag: v[0], Digest: v[1]})
				}
			}
			out, err := Files(work, changes)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range out.Problems {
				t.Logf("problem: %s:%d: %s", p.File, p.Line, p.Message)
			}
			expected := filepath.Join(dir, "expected")
			if *update {
				os.RemoveAll(expected)
				copyDir(t, work, expected)
			}
			if diff := cmp.Diff(readDir(t, expected), readDir(t, work)); diff != "" {
				t.Errorf("tree mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
