package policy

import "testing"

// TestStreamOthers decides the tag schemes that other updaters' tests and
// workarounds are about: Renovate's docker, redhat and regex versioning
// specs and its crowd-sourced workarounds preset, Flux
// image-reflector-controller's policy tests, Argo CD Image Updater's tag
// tests. Where the stream rule decides differently on purpose (it never
// crosses variants, never leaves a floating tag on its own), the case says
// so.
func TestStreamOthers(t *testing.T) {
	runDecide(t, []decideCase{
		// linuxserver.io: -ls<N> counts the image's builds across versions.
		{name: "linuxserver: version and build", current: "4.0.4.1491-ls237", tags: []string{
			"4.0.4.1491-ls237", "4.0.4.1491-ls238", "4.0.5.1710-ls239", "version-4.0.5.1710", "develop-4.0.5.1711-ls100", "latest",
		}, want: "4.0.5.1710-ls239", typ: "patch"},
		{name: "linuxserver: a rebuild", current: "2.10.0-ls298", tags: []string{"2.10.0-ls298", "2.10.0-ls299"},
			want: "2.10.0-ls299", typ: "build"},
		{name: "linuxserver: a commit id in the version", current: "1.40.2.8395-c67dce28e-ls212", tags: []string{
			"1.40.2.8395-c67dce28e-ls213", "1.40.3.8555-fef15d30c-ls214", "amd64-1.40.3.8555-fef15d30c-ls214",
		}, want: "1.40.3.8555-fef15d30c-ls214", typ: "patch"},
		{name: "linuxserver: an alpine package release, then the build", current: "4.6.4-r0-ls328", tags: []string{
			"4.6.4-r0-ls329", "4.6.5-r0-ls330", "4.6.5-r1-ls331",
		}, want: "4.6.5-r1-ls331", typ: "patch"},
		{name: "linuxserver: the arch prefix is kept", current: "amd64-4.89.1-ls215", tags: []string{
			"amd64-4.89.1-ls216", "arm64v8-4.90.0-ls217", "amd64-4.90.0-ls217",
		}, want: "amd64-4.90.0-ls217", typ: "minor"},
		// Kubernetes distributions count their builds of one upstream
		// release (Renovate's k3s and rke2 workarounds).
		{name: "k3s: the next release with its first build", current: "v1.29.3-k3s2", tags: []string{
			"v1.29.3-k3s1", "v1.29.3-k3s2", "v1.29.4-k3s1", "v1.30.0-rc1-k3s1",
		}, want: "v1.29.4-k3s1", typ: "patch"},
		{name: "k3s: a rebuild", current: "v1.29.3-k3s1", tags: []string{"v1.29.3-k3s1", "v1.29.3-k3s2"},
			want: "v1.29.3-k3s2", typ: "build"},
		{name: "rke2", current: "v1.29.3-rke2r2", tags: []string{"v1.29.3-rke2r1", "v1.29.3-rke2r2", "v1.29.4-rke2r1"},
			want: "v1.29.4-rke2r1", typ: "patch"},
		{name: "rke2 hardened builds", current: "v1.29.3-rke2r1-build20240315", tags: []string{
			"v1.29.3-rke2r1-build20240401", "v1.29.4-rke2r1-build20240420",
		}, want: "v1.29.4-rke2r1-build20240420", typ: "patch"},
		{name: "k0s", current: "v1.29.2-k0s.1", tags: []string{"v1.29.2-k0s.0", "v1.29.2-k0s.1", "v1.29.3-k0s.0"},
			want: "v1.29.3-k0s.0", typ: "patch"},
		// Red Hat: .GA, then the release counter (Renovate's redhat
		// versioning).
		{name: "Red Hat GA release", current: "1.0.0.GA-20.1770236070", tags: []string{
			"1.0.0.GA-20.1770236070", "1.0.0.GA-21.1780236070", "1.0.1.GA-1",
		}, want: "1.0.1.GA-1", typ: "patch"},
		{name: "Red Hat GA rebuild", current: "1.0.0.GA-20.1770236070", tags: []string{"1.0.0.GA-21.1780236070"},
			want: "1.0.0.GA-21.1780236070", typ: "build"},
		// SQL Server: CU counts cumulative updates of one release; a GDR
		// security update on top is a variant of its own.
		{name: "mssql cumulative update", current: "2022-CU12-ubuntu-22.04", tags: []string{
			"2022-CU12-ubuntu-22.04", "2022-CU13-ubuntu-22.04", "2022-CU13-GDR1-ubuntu-22.04", "2019-CU26-ubuntu-20.04", "2022-latest",
		}, want: "2022-CU13-ubuntu-22.04", typ: "build"},
		{name: "mssql GDR stays GDR", current: "2022-CU13-GDR1-ubuntu-22.04", tags: []string{
			"2022-CU13-GDR1-ubuntu-22.04", "2022-CU14-GDR1-ubuntu-22.04", "2022-CU14-ubuntu-22.04",
		}, want: "2022-CU14-GDR1-ubuntu-22.04", typ: "build"},
		{name: "mssql keeps its OS", current: "2019-CU18-ubuntu-20.04", tags: []string{
			"2019-CU26-ubuntu-20.04", "2022-CU13-ubuntu-22.04",
		}, want: "2019-CU26-ubuntu-20.04", typ: "build", detail: "2022 only as ubuntu-22.04"},
		// redis-stack: -v<N> right after the version counts its builds;
		// after an architecture it is the architecture's revision.
		{name: "redis-stack", current: "7.2.0-v10", tags: []string{
			"7.2.0-v10", "7.2.0-v11", "7.4.0-v0", "6.2.6-v15", "7.2.0-RC3", "latest", "edge",
		}, want: "7.4.0-v0", typ: "minor"},
		{name: "redis-stack rebuild", current: "7.2.0-v10", tags: []string{"7.2.0-v11"}, want: "7.2.0-v11", typ: "build"},
		{name: "arm-v7 is an architecture", current: "1.2.3-linux-arm-v7", tags: []string{"1.2.4-linux-arm-v6", "1.2.4-linux-arm-v7"},
			want: "1.2.4-linux-arm-v7", typ: "patch"},
		// AdGuard Home: -a.1 and -b.1 are alphas and betas, moving to the
		// release once it is out.
		{name: "AdGuard beta to release", current: "0.108.0-b.1", tags: []string{"0.108.0-b.2", "0.108.0", "0.108.1", "0.107.49"},
			want: "0.108.1", typ: "patch"},
		{name: "AdGuard beta while none is released", current: "0.108.0-a.1", tags: []string{"0.108.0-a.2", "0.108.0-b.1", "0.107.49"},
			want: "0.108.0-b.1", typ: "patch"},
		{name: "AdGuard release never to a beta", current: "0.107.48", tags: []string{"0.107.49", "0.108.0-b.1", "0.108.0-a.1"},
			want: "0.107.49", typ: "patch"},
		{name: "cu121 names CUDA, a variant", current: "2.3.0-cu118", tags: []string{"2.3.0-cu121", "2.3.1-cu118", "2.3.1-cu121"},
			want: "2.3.1-cu118", typ: "patch"},
		// Renovate's docker versioning and lookup specs.
		{name: "renovate: less precise tags are no target", current: "8.1.0",
			tags: []string{"8.1.0", "8.1.5", "8.1", "8.2.0", "8.2.5", "8.2", "8", "9.0", "9"}, want: "8.2.5", typ: "minor"},
		{
			// Renovate moves 8.1 to 8.2 and 9.0; a floating tag is never
			// moved silently here, it is pinned on request.
			name: "renovate: a floating minor stays, told", current: "8.1",
			tags:   []string{"8.1.0", "8.1.5", "8.1", "8.2.0", "8.2.5", "8.2", "8", "9.0", "9"},
			reason: ReasonFloating, detail: "8.1 floats, now 8.1.5 (pin: tag)",
		},
		{name: "renovate: versionCompatibility keeps alpine", current: "18.10.0-alpine",
			tags: []string{"18.10.0", "18.18.0", "18.19.0-alpine", "18.20.0"}, want: "18.19.0-alpine", detail: "18.20.0 only as plain"},
		{name: "renovate: maven's .jre8", current: "12.4.2.jre8",
			tags: []string{"12.4.2.jre8", "12.5.0.jre11", "12.6.1.jre8", "12.6.1.jre11", "12.6.2.jre11"}, want: "12.6.1.jre8",
			detail: "12.6.2 only as jre11"},
		{name: "renovate: unstable python sorts below its release", current: "3.7.0b1", tags: []string{
			"3.7.0", "3.7-alpine", "3.7.0b1", "3.7.0b5", "3.8.0b1-alpine", "3.8.0-alpine", "3.8.2", "3.8.0",
		}, want: "3.8.2", typ: "minor"},
		{name: "renovate: 3.7-alpine is a version when nothing extends it", current: "3.7-alpine", tags: []string{
			"3.7.0", "3.7-alpine", "3.7.0b1", "3.8.0b1-alpine", "3.8.0-alpine", "3.8.2",
		}, want: "3.8.0-alpine", detail: "3.8.2 only as plain"},
		// Renovate's redhat versioning.
		{name: "redhat: release counter", current: "7.9-46", tags: []string{"7.9-49"}, want: "7.9-49", typ: "build"},
		{name: "redhat: a counter without epoch above one with", current: "1-81.1618436879", tags: []string{"1-121"}, want: "1-121"},
		{name: "redhat: the epoch orders rebuilds", current: "7.9-698.1645808164", tags: []string{"7.9-698.1655292976"},
			want: "7.9-698.1655292976", typ: "build"},
		{name: "redhat: two-digit minor", current: "8.5-754.1651231664", tags: []string{"8.45-754.1652117782"}, want: "8.45-754.1652117782"},
		{name: "redhat: v prefix", current: "v0.4.0-383", tags: []string{"v0.4.0-390", "v0.5.0-1"}, want: "v0.5.0-1", typ: "minor"},
		{name: "redhat: never down", current: "2.4.0-51", tags: []string{"2.4.0-50", "1-19"}, reason: ReasonUpToDate},
		// Renovate's workarounds preset.
		{name: "clamav: the version floats over its builds", current: "1.3.1",
			tags: []string{"1.3.1", "1.3.1-30", "1.3.2", "1.3.2-1", "1.3", "stable"}, reason: ReasonFloating,
			detail: "1.3.1 floats, now 1.3.1-30 (pin: tag)"},
		{name: "clamav: _base kept", current: "1.0.1-2_base", tags: []string{
			"1.0.1-3_base", "1.0.2_base", "1.0.2-1_base", "1.3.1-30_base", "1.3.1_base", "1.3_base", "stable_base",
		}, want: "1.3.1-30_base", typ: "minor"},
		{name: "liberica: jdk- prefix kept", current: "jdk-21.0.3_10-slim-musl", tags: []string{
			"jdk-21.0.4_9-slim-musl", "jdk-21.0.4_9-slim-glibc", "jre-21.0.4_9-slim-musl", "jdk-all-21.0.4_9-slim-musl", "jdk-22.0.1_12-slim-musl",
		}, want: "jdk-22.0.1_12-slim-musl", typ: "major"},
		{
			// Renovate limits Java to LTS majors by preset; here that is a
			// range or allow: minor.
			name: "java: every major is a version", current: "21.0.3-al2023-headless",
			tags: []string{"21.0.4-al2023-headless", "22.0.1-al2023-headless", "21.0.4-al2-headless"}, want: "22.0.1-al2023-headless",
		},
		{name: "alpine: never from stable to an edge snapshot", current: "3.19.1",
			tags: []string{"3.19.1", "3.20.0", "20240329", "edge", "3.20"}, want: "3.20.0", typ: "minor"},
		{name: "alpine: edge snapshots stay snapshots", current: "20240329", tags: []string{"20240606", "3.20.0"}, want: "20240606"},
		// Flux image-reflector-controller and Argo CD Image Updater.
		{name: "flux: 1.0.0p is another variant", current: "1.0.0", tags: []string{"1.0.0p", "1.0.1", "1.2.0", "0.1.0"}, want: "1.2.0"},
		{name: "flux: the prefix is the stream", current: "test-0.1.0",
			tags: []string{"test-0.1.1", "dev-0.2.0", "1.0.0", "1.0.2", "1.1.0-alpha"}, want: "test-0.1.1"},
		{
			// Argo CD Image Updater moves 1.0 to 2.0.3; 1.0 is an alias
			// of 1.0.1 here.
			name: "argocd: a floating current", current: "1.0", tags: []string{"0.1", "0.5.1", "0.9", "1.0", "1.0.1", "1.1.2", "2.0.3"},
			reason: ReasonFloating, detail: "1.0 floats, now 1.0.1 (pin: tag)",
		},
		{name: "argocd: a describe build of an rc is no release", current: "v2.2.0",
			tags: []string{"v2.2.0", "v2.3.0-rc.0.18.g1abb7b5dd-ppc64le", "v2.3.0-rc.0.18.g1abb7b5dd"}, reason: ReasonNewerPrerelease,
			detail: "v2.3.0-rc.0.18.g1abb7b5dd is newer but a prerelease: a release never moves to one"},
	})
}
