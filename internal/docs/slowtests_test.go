package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestSlowTestsRunSomewhere: the Makefile's SLOW_TESTS are skipped by
// `make test` and run by `make test-slow` in SLOW_PKGS alone. Each of its
// names must still match a test (a renamed test would silently move back
// into `make test`, or a stale name stay listed), and every test it
// matches must be in SLOW_PKGS, or no target would run it.
func TestSlowTestsRunSomewhere(t *testing.T) {
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	slow := makeVar(t, string(mk), "SLOW_TESTS")
	slow = strings.ReplaceAll(slow, "$$", "$")
	pkgs := strings.Fields(makeVar(t, string(mk), "SLOW_PKGS"))
	all, err := regexp.Compile(slow)
	if err != nil {
		t.Fatalf("SLOW_TESTS %q: %v", slow, err)
	}
	inner := strings.TrimSuffix(strings.TrimPrefix(slow, "^("), ")$")
	alts := strings.Split(inner, "|")
	matched := make([]bool, len(alts))
	testFunc := regexp.MustCompile(`(?m)^func (Test\w+)\(t \*testing\.T\)`)
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		pkg := "./" + filepath.ToSlash(filepath.Dir(strings.TrimPrefix(path, root+string(filepath.Separator))))
		for _, m := range testFunc.FindAllStringSubmatch(string(src), -1) {
			name := m[1]
			if !all.MatchString(name) {
				continue
			}
			if !slices.Contains(pkgs, pkg) {
				t.Errorf("%s in %s matches SLOW_TESTS, but SLOW_PKGS (%s) leaves it out: no target runs it", name, pkg, strings.Join(pkgs, " "))
			}
			for i, a := range alts {
				if regexp.MustCompile("^(" + a + ")$").MatchString(name) {
					matched[i] = true
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range alts {
		if !matched[i] {
			t.Errorf("SLOW_TESTS names %q, which matches no test: drop it or name the test it meant", a)
		}
	}
}

// makeVar is the value of a `NAME := value` line of a Makefile.
func makeVar(t *testing.T, mk, name string) string {
	t.Helper()
	for line := range strings.Lines(mk) {
		if v, ok := strings.CutPrefix(line, name); ok {
			if v, ok := strings.CutPrefix(strings.TrimSpace(v), ":="); ok {
				return strings.TrimSpace(v)
			}
		}
	}
	t.Fatalf("the Makefile sets no %s", name)
	return ""
}
