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
	})
}
