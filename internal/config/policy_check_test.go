package config

import (
	"errors"
	"fmt"
	"strconv"
	"testing"

	"github.com/imagebot/imagebot/internal/policy"
)

// TestPolicyKeysAgreeWithPolicy holds the loader to internal/policy: a
// value of a key that policy.New interprets loads exactly when policy.New
// accepts it, so `validate` can never pass what `plan` then refuses
// (issue 9: `ignore: ["[1.2"]` passed validate and failed every plan), nor
// refuse what plan would run. The error sits on the line of the value.
func TestPolicyKeysAgreeWithPolicy(t *testing.T) {
	values := map[string][]string{
		"allow":      {"major", "minor", "patch", "Minor", "MAJOR", "none", "", " minor"},
		"versioning": {"semver", "numeric", "alphabetical", "semantic", "Semver", "", "loose", "regex"},
		"pin":        {"tag", "digest", "sha", "Tag", ""},
		"pattern": {`^build-(?P<version>\d+)$`, `^(?<version>.*)$`, `^build-(\d+)$`, `^(?P<version>\d+`,
			`(?P<version>a)|(?P<version>b)`, `[`, ""},
		"range":  {"<21", "~1.25", ">=1.2, <2", "1.24.3", "=1.24.3", "not a range", ">=", "^1.x", "1.2 || 2.x", ""},
		"ignore": {"1.1.0", "1.27.*", "[1.2", "1.[0-9]*", `1.2\`, "v*", "*"},
	}
	for key, vs := range values {
		for _, v := range vs {
			t.Run(key+"="+v, func(t *testing.T) {
				spec := policy.Spec{}
				line := fmt.Sprintf("    %s: %s\n", key, strconv.Quote(v))
				switch key {
				case "allow":
					spec.Allow = v
				case "versioning":
					spec.Versioning = v
				case "pin":
					spec.Pin = v
				case "pattern":
					spec.Pattern = v
				case "range":
					spec.Versioning, spec.Range = "semver", v
					line = "    versioning: semver\n" + line
				case "ignore":
					spec.Ignore = []string{v}
					line = fmt.Sprintf("    %s: [%s]\n", key, strconv.Quote(v))
				}
				_, perr := policy.New(spec)
				if v == "" {
					// policy.New reads "" as not set; the loader holds a
					// key written with an empty value to be a slip.
					perr = errors.New("empty")
				}
				_, cerr := Parse("f.yaml", []byte("policies:\n  - match: a.io/x\n"+line))
				if (perr == nil) != (cerr == nil) {
					t.Fatalf("policy.New: %v\nconfig: %v\nthey must agree", perr, cerr)
				}
				if cerr == nil {
					return
				}
				var errs *Errors
				if !errors.As(cerr, &errs) || len(*errs) == 0 {
					t.Fatalf("config error %v is not *Errors", cerr)
				}
				// The refusal is at the value's line.
				wantLine := 3
				if key == "range" {
					wantLine = 4
				}
				if e := (*errs)[0]; e.Line != wantLine {
					t.Errorf("error %q is on line %d, want %d (the %s key)", e, e.Line, wantLine, key)
				}
			})
		}
	}
}

// TestRangeNeedsSemverInEntry keeps the rule that a range is written next
// to its versioning, which policy.New cannot see: it only gets the merged
// entries of one image.
func TestRangeNeedsSemverInEntry(t *testing.T) {
	tests := []struct{ yaml, want string }{
		{"policies:\n- match: a.io/x\n  range: <2\n", `f.yaml:3:10: "range" needs "versioning: semver" in the same policy`},
		{"policies:\n- {match: a.io/x, versioning: semver}\n- match: a.io/x\n  range: <2\n",
			`f.yaml:4:10: "range" needs "versioning: semver" in the same policy`},
		{"policies:\n- match: a.io/x\n  versioning: numeric\n  range: <2\n", `f.yaml:4:10: "range" only works with "versioning: semver", not "numeric"`},
	}
	for _, tc := range tests {
		if _, err := Parse("f.yaml", []byte(tc.yaml)); err == nil || err.Error() != tc.want {
			t.Errorf("Parse(%q) = %v, want %s", tc.yaml, err, tc.want)
		}
	}
}
