package adopt

import (
	"strings"
	"testing"
	"testing/fstest"
)

// TestRenovateManagerScopedRules: the shapes of real configs that scope
// rules by manager. A rule for regex managers only is skipped with a note
// (it would otherwise become labels for every image and override the
// kubernetes rule before it); a rule for kubernetes in a config that also
// has a docker regex manager converts with a note saying what it widens;
// every regex manager is accounted for; a later pinDigests false that
// cannot be expressed and a rule that sets only defaults are named; the
// names one image goes by become one policy.
func TestRenovateManagerScopedRules(t *testing.T) {
	src := `{
  "customManagers": [
    {"customType": "regex", "managerFilePatterns": ["/values\\.yaml$/"],
     "matchStrings": ["repository: (?<depName>\\S+)\\n\\s*tag: (?<currentValue>\\S+)"],
     "datasourceTemplate": "docker"},
    {"customType": "regex", "managerFilePatterns": ["/release\\.yaml$/"],
     "matchStrings": ["chart: (?<depName>\\S+)\\n\\s*version: (?<currentValue>\\S+)"],
     "datasourceTemplate": "helm"},
    {"customType": "regex", "managerFilePatterns": ["/any\\.yaml$/"],
     "matchStrings": ["datasource=(?<datasource>\\S+) depName=(?<depName>\\S+)"]}
  ],
  "packageRules": [
    {"matchManagers": ["kubernetes", "helm-values"], "labels": ["container"]},
    {"matchManagers": ["custom.regex"], "labels": ["helm"]},
    {"matchDatasources": ["docker"], "pinDigests": true},
    {"matchManagers": ["custom.regex"], "matchDatasources": ["docker"], "pinDigests": false},
    {"matchDatasources": ["docker"], "matchPackageNames": ["ghcr.io/acme/app"], "pinDigests": false},
    {"matchDatasources": ["docker"], "matchPackageNames": ["ghcr.io/acme/web"], "versioning": "loose"},
    {"matchPackageNames": ["postgres", "library/postgres", "docker.io/postgres"],
     "matchFileNames": ["db/statefulset.yaml"], "allowedVersions": "/^17\\./"}
  ]
}`
	res, err := FromRenovate(t.Context(), fstest.MapFS{"renovate.json": {Data: []byte(src)}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, n := range res.Notes {
		all = append(all, n.String())
	}
	notes := strings.Join(all, "\n")
	for _, want := range []string{
		"renovate.json:3: customManagers[0]: a regex manager for docker images: not converted",
		"renovate.json:2: customManagers: the regex managers for helm are not about images; not converted",
		"customManagers[2]: a regex manager whose datasource its matchStrings capture: not converted",
		"packageRules[0] (renovate.json:13): matchManagers kubernetes, helm-values: converted for every image imagebot finds, which includes the images the config's docker regex managers find",
		"packageRules[1] (renovate.json:14): matchManagers custom.regex: imagebot cannot tell the images a regex manager finds from the others, and does not widen the rule to every image; rule skipped",
		"packageRules[3] (renovate.json:16): matchManagers custom.regex: imagebot cannot tell",
		"packageRules[4] (renovate.json:17): pinDigests false: a digest an earlier rule pins (pin: digest) cannot be unpinned by a later policy; not converted",
		"renovate.json:18: packageRules[5] (renovate.json:18): nothing to write: what it sets is imagebot's default",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q; they are:\n%s", want, notes)
		}
	}
	cfg := string(res.Config)
	if strings.Contains(cfg, "labels: [helm]") {
		t.Errorf("the regex-manager rule was widened to every image:\n%s", cfg)
	}
	if n := strings.Count(cfg, "match: docker.io/library/postgres"); n != 1 {
		t.Errorf("postgres under three names: %d policies, want 1:\n%s", n, cfg)
	}
}
