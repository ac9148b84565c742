package adopt

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/imagebot/imagebot/internal/config"
)

// TestRenovateDepth: a renovate.json nested a million levels deep (which
// overflowed the stack at 1 GiB) is refused with the file, the line, the
// limit and what to do; brackets in strings and comments do not count.
func TestRenovateDepth(t *testing.T) {
	deep := "{\n\"packageRules\":\n" + strings.Repeat("[", 400_000) + strings.Repeat("]", 400_000) + "}\n"
	_, err := FromRenovate(t.Context(), fstest.MapFS{"renovate.json": {Data: []byte(deep)}}, Options{})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "renovate.json:3: ") || !strings.Contains(err.Error(), "more than 64 levels") {
		t.Errorf("deep renovate.json: %v, want renovate.json:3, the limit and ErrTooLarge", err)
	}

	brackets := strings.Repeat("[{", 100)
	shallow := fmt.Sprintf("{\n  // %s\n  /* %s */\n  \"description\": %q,\n  \"packageRules\": [{\"matchPackageNames\": [\"nginx\"], \"enabled\": false}]\n}\n", brackets, brackets, brackets)
	if _, err := FromRenovate(t.Context(), fstest.MapFS{"renovate.json": {Data: []byte(shallow)}}, Options{}); err != nil {
		t.Errorf("brackets in comments and strings: %v", err)
	}
}

// TestInitOutputValidates: a conversion whose config would be above what
// validate reads is refused, nothing written, rather than written and
// then refused by every command; its notes are summarised before that.
func TestInitOutputValidates(t *testing.T) {
	var rules []string
	for i := range 8_000 { // under the input cap, over the output one
		rules = append(rules, fmt.Sprintf(`{"matchPackageNames": ["ghcr.io/acme/service-number-%d"], "allowedVersions": "<2.0.0"}`, i))
	}
	src := `{"packageRules": [` + strings.Join(rules, ",\n") + `]}`
	_, err := FromRenovate(t.Context(), fstest.MapFS{"renovate.json": {Data: []byte(src)}}, Options{})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "nothing was written") || !strings.Contains(err.Error(), fmt.Sprint(config.MaxSize)) {
		t.Fatalf("huge conversion: %v, want ErrTooLarge naming the limit and what to do", err)
	}

	// Within the limit, what init writes is what validate accepts.
	res, err := FromRenovate(t.Context(), fstest.MapFS{"renovate.json": {Data: []byte(`{"packageRules": [` + strings.Join(rules[:100], ",") + `]}`)}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := config.Check(".imagebot.yaml", res.Config); err != nil {
		t.Errorf("init's config does not validate: %v", err)
	}
}

// TestInitNotesSummarised: a header that would repeat thousands of notes
// gives their count instead, so that the config still fits.
func TestInitNotesSummarised(t *testing.T) {
	d := &draft{origin: "init"}
	var ns notes
	for i := range 8_000 {
		ns.add(fmt.Sprintf("apps/service-%05d.yaml", i), 1, "%s", strings.Repeat("a note long enough to matter when repeated thousands of times ", 2))
	}
	res, err := finish(d, ns, Options{ActionRef: "v1"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := config.Check(".imagebot.yaml", res.Config); err != nil {
		t.Errorf("config with the notes summarised: %v", err)
	}
	if !strings.Contains(string(res.Config), "8000 notes, too many to repeat here") {
		t.Errorf("header does not count the notes:\n%.500s", res.Config)
	}
}
