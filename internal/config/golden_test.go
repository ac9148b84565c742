package config

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// TestGolden loads every testdata/*.yaml and compares what comes out with
// its .golden file: the error lines for a bad file, the loaded config as
// JSON for a good one (so that defaults are reviewed too). Files named
// valid_* must load and invalid_* must not.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		t.Run(name, func(t *testing.T) {
			c, err := Load(file)
			var got string
			switch {
			case err != nil:
				var errs *Errors
				if !errors.As(err, &errs) {
					t.Fatalf("Load: %v is not *Errors", err)
				}
				got = err.Error() + "\n"
			default:
				var b strings.Builder
				enc := json.NewEncoder(&b)
				enc.SetEscapeHTML(false) // keep patterns and ranges readable
				enc.SetIndent("", "  ")
				if err := enc.Encode(c); err != nil {
					t.Fatal(err)
				}
				got = b.String()
			}
			if valid := strings.HasPrefix(name, "valid_"); valid != (err == nil) {
				t.Errorf("Load(%s): err = %v, want valid = %v", file, err, valid)
			}
			golden := strings.TrimSuffix(file, ".yaml") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./internal/config -update)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("%s mismatch (-want +got):\n%s", golden, diff)
			}
		})
	}
}

// TestDocsExample keeps the complete example of the configuration reference
// (docs/configuration.md) the loader's own fixture: the page promises it is,
// so it must not drift.
func TestDocsExample(t *testing.T) {
	const page = "../../docs/configuration.md"
	doc, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "## A complete example\n")
	_, block, ok2 := strings.Cut(section, "```yaml\n")
	block, _, ok3 := strings.Cut(block, "```\n")
	if !ok || !ok2 || !ok3 {
		t.Fatalf(`%s has no "## A complete example" with a yaml block`, page)
	}
	fixture, err := os.ReadFile("testdata/valid_full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// Both start with a schema comment (a URL in the page, a relative
	// path in the fixture); the fixture then says what it is for.
	_, want, _ := strings.Cut(string(fixture), "# Every key there is, once.\n")
	_, got, _ := strings.Cut(block, "\n")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: the complete example differs from testdata/valid_full.yaml (-fixture +page):\n%s", page, diff)
	}
}
