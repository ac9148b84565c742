package policy

import "testing"

// TestPassedOver: `up-to-date` means that nothing newer exists in any
// shape. When the rule leaves a tag where it is while a newer version
// exists in another shape, the decision names the highest such tag and why
// it was passed over (DESIGN.md "Notices").
func TestPassedOver(t *testing.T) {
	const otherOS = "10.0.20348.2340 is newer but for another Windows OS build (10.0.20348, not 10.0.17763): " +
		"a container's OS build must match its node's, so it is never proposed"
	runDecide(t, []decideCase{
		// The shapes measured on other tools' tag tables.
		{name: "another Windows OS build", current: "10.0.17763.5576", tags: []string{"10.0.17763.5576", "10.0.20348.2340"},
			reason: ReasonOtherOS, detail: otherOS},
		{name: "another Windows release in the variant", current: "3.12.0-windowsservercore-ltsc2022",
			tags:   []string{"3.12.0-windowsservercore-ltsc2022", "3.13.0-windowsservercore-ltsc2025"},
			reason: ReasonOtherOS, detail: "3.13.0 only as windowsservercore-ltsc2025, none for Windows ltsc2022: " +
				"a container's OS build must match its node's, so another is never proposed"},
		{name: "a prerelease of another version", current: "23-ea-12", tags: []string{"23-ea-12", "24-ea-3"},
			reason: ReasonNewerPrerelease, detail: "24-ea-3 is newer but a prerelease of another version (24, not 23): " +
				"a prerelease moves only to a later one of its own version, or to a release"},
		{name: "a floating newer version", current: "9.2", tags: []string{"9.2", "9.4", "9.4-1214", "9.4-1181.1712567892"},
			reason: ReasonNewerFloating, detail: "9.4 is newer but floats, now 9.4-1214 (an alias that moves): not proposed"},
		// Every other reason.
		{name: "a release never moves to a prerelease", current: "1.4.0", tags: []string{"1.4.0", "1.5.0-rc.1"},
			reason: ReasonNewerPrerelease, detail: "1.5.0-rc.1 is newer but a prerelease: a release never moves to one"},
		{name: "a release before a higher prerelease", current: "1.4.0", tags: []string{"1.4.0", "1.6.0-rc.1", "v1.5.0"},
			reason: ReasonOtherStream, detail: "v1.5.0 is newer but spells the version with another prefix: not proposed; " +
				`a policy with pattern '^v?(?P<version>\d+(\.\d+)*)$' follows both`},
		{name: "another prefix", current: "trusty-20191217", tags: []string{"trusty-20191217", "jammy-20240227", "22.04"},
			reason: ReasonOtherStream, detail: "jammy-20240227 is newer but has another prefix (jammy-, not trusty-): another stream, not proposed"},
		{name: "a build counter", current: "9.2", tags: []string{"9.2", "9.4-1214"},
			reason: ReasonOtherStream, detail: "9.4-1214 is newer but has a build counter, 9.2 none: another stream, not proposed"},
		{name: "no commit id", current: "main-20240601-3f9a2c1", tags: []string{"main-20240601-3f9a2c1", "main-20240701"},
			reason: ReasonOtherStream, detail: "main-20240701 is newer but has no commit id, main-20240601-3f9a2c1 has one: another stream, not proposed"},
		{name: "another variant, less precise", current: "1.2.3-alpine", tags: []string{"1.2.3-alpine", "1.3-bookworm"},
			reason: ReasonOtherVariant, detail: "1.3 only as bookworm"},
		{name: "fewer numbers", current: "1.25.3", tags: []string{"1.25.3", "1.26"},
			reason: ReasonLessPrecise, detail: "1.26 is newer but states fewer numbers than 1.25.3: not proposed"},
		{name: "ignored", spec: Spec{Ignore: []string{"1.5.*"}}, current: "1.4.5", tags: []string{"1.4.5", "1.5.0"},
			reason: ReasonExcluded, detail: "1.5.0 is newer but ignored (ignore: 1.5.*): not proposed"},
		{name: "allow minor", spec: Spec{Allow: "minor"}, current: "1.4.5", tags: []string{"1.4.5", "2.0.0"},
			reason: ReasonExcluded, detail: "2.0.0 is newer but allow: minor keeps the first number: not proposed"},
		{name: "allow patch", spec: Spec{Allow: "patch"}, current: "1.4.5", tags: []string{"1.4.5", "1.5.0"},
			reason: ReasonExcluded, detail: "1.5.0 is newer but allow: patch keeps the first two numbers: not proposed"},
		// Explicit versionings decide on their own terms, and say so.
		{name: "semver: outside the range", spec: Spec{Versioning: "semver", Range: "<2"}, current: "1.4.5",
			tags: []string{"1.4.5", "2.0.0"}, reason: ReasonExcluded, detail: `2.0.0 is newer but outside range "<2": not proposed`},
		{name: "semver: a prerelease the range does not name", spec: Spec{Versioning: "semver", Range: "<2"}, current: "1.4.5",
			tags: []string{"1.4.5", "1.5.0-rc.1"}, reason: ReasonNewerPrerelease,
			detail: `1.5.0-rc.1 is newer but a prerelease, and range "<2" names none: not proposed`},
		{name: "semver: a bare number", spec: Spec{Versioning: "semver"}, current: "1.4.5", tags: []string{"1.4.5", "3050"},
			reason: ReasonLessPrecise, detail: "3050 is newer but states fewer numbers than 1.4.5: not proposed"},
		{name: "semver: the v prefix before a bare number", spec: Spec{Versioning: "semver"}, current: "1.4.5",
			tags: []string{"1.4.5", "1.5.0-rc.1", "3050", "v1.6.0"}, reason: ReasonOtherStream,
			detail: "v1.6.0 is newer but spells the version with another prefix: not proposed"},
		{name: "semver: not read", spec: Spec{Versioning: "semver"}, current: "1.4.5", tags: []string{"1.4.5", "1.5.0.1"},
			reason: ReasonExcluded, detail: "1.5.0.1 is newer but versioning semver does not read it: not proposed"},
		{name: "numeric: a bare number", spec: Spec{Versioning: "numeric"}, current: "1.4.5", tags: []string{"1.4.5", "3050"},
			reason: ReasonLessPrecise, detail: "3050 is newer but states fewer numbers than 1.4.5: not proposed"},
		{name: "pattern", spec: Spec{Pattern: `^build-(?P<version>\d+)$`}, current: "build-9", tags: []string{"build-9", "build-10-rc"},
			reason: ReasonExcluded, detail: `build-10-rc is newer but does not match pattern "^build-(?P<version>\d+)$": not proposed`},
		// Nothing newer in any shape.
		{name: "a date is another scheme", current: "3.20.1", tags: []string{"3.20.1", "20240606", "edge"}, reason: ReasonUpToDate},
		{name: "alphabetical orders 10 below 9", spec: Spec{Versioning: "alphabetical"}, current: "9", tags: []string{"9", "10"},
			reason: ReasonUpToDate},
		{name: "a commit build of the same version", current: "v2.4.0", tags: []string{"v2.4.0", "v2.4.0-12-g3a4b5c6"},
			reason: ReasonUpToDate},
		{name: "older only", current: "1.4.5", tags: []string{"1.4.4", "1.4.5-rc.1", "v1.4.5", "1.4"}, reason: ReasonUpToDate},
	})
}
