package policy

import "testing"

// TestStreamReal decides real tags against real listings: the
// docker-library images with every tag their official-images file ever
// named, and listings written after the schemes of other registries
// (testdata/tags says which is which).
func TestStreamReal(t *testing.T) {
	const other = "only as alpine, alpine3.23, alpine3.24, plain, 7 more"
	const win1809 = ", none for Windows 1809: a container's OS build must match its node's, so another is never proposed"
	runDecide(t, []decideCase{
		// nginx: mainline and stable, debian/alpine with and without the
		// alpine release, -perl, -slim, -otel.
		{file: "nginx", current: "1.25.3", want: "1.31.4", typ: "minor"},
		{file: "nginx", current: "1.25.3-alpine-slim", want: "1.31.4-alpine-slim"},
		{file: "nginx", current: "1.25.3-perl", want: "1.31.4-perl"},
		{file: "nginx", current: "1.25.4-alpine3.19", want: "1.27.0-alpine3.19",
			detail: "1.31.4 only as alpine, alpine3.24, alpine-otel, alpine-perl, 10 more"},
		{file: "nginx", current: "1.27", reason: ReasonFloating, detail: "1.27 floats, now 1.27.5 (pin: tag)"},
		{file: "nginx", current: "mainline-alpine", reason: ReasonFloating, detail: "mainline-alpine floats (pin: tag)"},
		{file: "nginx", current: "alpine3.20", reason: ReasonFloating, detail: "alpine3.20 floats (pin: tag)"},
		// node: codenames float; alpine releases are kept.
		{file: "node", current: "20.11.1", want: "26.7.0", typ: "major"},
		{file: "node", current: "20.11.1-bookworm-slim", want: "26.7.0-bookworm-slim"},
		{file: "node", current: "20.11.1-alpine3.18", want: "22.2.0-alpine3.18", detail: "26.7.0 " + other},
		{file: "node", current: "20", reason: ReasonFloating, detail: "20 floats, now 20.20.2 (pin: tag)"},
		{file: "node", current: "iron-alpine3.19", reason: ReasonFloating, detail: "iron-alpine3.19 floats (pin: tag)"},
		{file: "node", current: "chakracore-8.9.4", want: "chakracore-10.13.0"},
		// python: release candidates and alphas glued to the version.
		{file: "python", current: "3.12.0rc2", want: "3.14.7", typ: "minor"},
		{file: "python", current: "3.12.0rc2-bookworm", want: "3.14.7-bookworm"},
		{file: "python", current: "3.13.0a1", want: "3.14.7"},
		{file: "python", current: "3.11.9-slim-bookworm", want: "3.14.7-slim-bookworm"},
		{file: "python", current: "3.12.0-windowsservercore-ltsc2022", want: "3.14.7-windowsservercore-ltsc2022"},
		{file: "python", current: "3.7.4-alpine3.10", want: "3.8.3-alpine3.10",
			detail: "3.14.7 only as alpine, alpine3.23, alpine3.24, plain, 8 more"},
		{file: "python", current: "3.12", reason: ReasonFloating, detail: "3.12 floats, now 3.12.14 (pin: tag)"},
		// postgres: two-number versions, betas glued to the major.
		{file: "postgres", current: "15.4", want: "18.6", typ: "major"},
		{file: "postgres", current: "17beta1", want: "18.6"},
		{file: "postgres", current: "17beta1-alpine3.20", want: "17.5-alpine3.20",
			detail: "18.6 only as alpine, alpine3.23, alpine3.24, plain, 2 more"},
		{file: "postgres", current: "9.6.24", reason: ReasonLessPrecise,
			detail: "18.6 is newer but states fewer numbers than 9.6.24: not proposed"},
		{file: "postgres", current: "15-alpine", reason: ReasonFloating, detail: "15-alpine floats, now 15.19-alpine (pin: tag)"},
		// golang: rc glued to a two-number version, tip builds by date,
		// Windows variants.
		{file: "golang", current: "1.22rc1", want: "1.27.0"},
		{file: "golang", current: "1.22rc1-bookworm", want: "1.27.0-bookworm"},
		{file: "golang", current: "tip-20240616-bookworm", want: "tip-20260815-bookworm"},
		{file: "golang", current: "1.21.6-nanoserver-1809", want: "1.24.3-nanoserver-1809",
			detail: "1.27.0 only as nanoserver, nanoserver-ltsc2022, nanoserver-ltsc2025, plain, 8 more" + win1809},
		{file: "golang", current: "1.22.0-windowsservercore-ltsc2022", want: "1.27.0-windowsservercore-ltsc2022"},
		// alpine, ubuntu, debian: floating releases, dated builds.
		{file: "alpine", current: "3.19.1", want: "3.24.1"},
		{file: "alpine", current: "3.19", reason: ReasonFloating, detail: "3.19 floats, now 3.19.9 (pin: tag)"},
		{file: "alpine", current: "20240329", want: "20260805"},
		{file: "ubuntu", current: "jammy-20240227", want: "jammy-20260810"},
		{file: "ubuntu", current: "trusty-20191217", reason: ReasonOtherStream,
			detail: "jammy-20260810 is newer but has another prefix (jammy-, not trusty-): another stream, not proposed"},
		{file: "ubuntu", current: "14.04", reason: ReasonFloating, detail: "14.04 floats, now 14.04.5 (pin: tag)"},
		{file: "debian", current: "bookworm-20240311-slim", want: "bookworm-20260803-slim"},
		{file: "debian", current: "12", reason: ReasonFloating, detail: "12 floats, now 12.15 (pin: tag)"},
		{file: "debian", current: "rc-buggy", reason: ReasonFloating, detail: "rc-buggy floats (pin: tag)"},
		// redis: release candidates without a patch number, milestones.
		{file: "redis", current: "7.2.4-alpine", want: "8.10.1-alpine"},
		{file: "redis", current: "7.2.4-alpine3.19", want: "7.2.5-alpine3.19",
			detail: "8.10.1 only as alpine, alpine3.23, plain, trixie"},
		{file: "redis", current: "7.2-rc1", want: "8.10.1"},
		{file: "redis", current: "8.0-M02-alpine", want: "8.10.1-alpine"},
		{file: "redis", current: "3.2.100-nanoserver", reason: ReasonOtherVariant,
			detail: "8.10.1 only as plain, alpine, alpine3.23, trixie"},
		// mysql: oracle and oraclelinux8 are different variants.
		{file: "mysql", current: "8.0.36-oraclelinux8", want: "8.4.0-oraclelinux8",
			detail: "26.7.0 only as oraclelinux9, plain, oracle"},
		{file: "mysql", current: "8.0-oraclelinux8", reason: ReasonFloating,
			detail: "8.0-oraclelinux8 floats, now 8.0.37-oraclelinux8 (pin: tag)"},
		{file: "mysql", current: "innovation", reason: ReasonFloating, detail: "innovation floats (pin: tag)"},
		// rabbitmq: two variant words, prereleases before them.
		{file: "rabbitmq", current: "3.13.2-management-alpine", want: "4.3.5-management-alpine"},
		{file: "rabbitmq", current: "3.12-management-alpine", reason: ReasonFloating,
			detail: "3.12-management-alpine floats, now 3.12.14-management-alpine (pin: tag)"},
		{file: "rabbitmq", current: "4.0.0-beta.1-management", want: "4.3.5-management"},
		{file: "rabbitmq", current: "4.0-rc-management", want: "4.3.5-management"},
		// traefik: v and no v, Windows variants, codenames.
		{file: "traefik", current: "v2.11.3", want: "v3.7.11"},
		{file: "traefik", current: "2.11.3", want: "3.7.11"},
		{file: "traefik", current: "v3.0.0-rc5", want: "v3.7.11"},
		{file: "traefik", current: "v3.0.1-windowsservercore-1809", want: "v3.4.1-windowsservercore-1809",
			detail: "3.7.11 only as windowsservercore-ltsc2022, windowsservercore-ltsc2025, plain, nanoserver-ltsc2022, 1 more" + win1809},
		{file: "traefik", current: "1.7.34-alpine", reason: ReasonOtherVariant,
			detail: "3.7.11 only as plain, nanoserver-ltsc2022, nanoserver-ltsc2025, windowsservercore-ltsc2022, 1 more"},
		{file: "traefik", current: "mimolette", reason: ReasonFloating, detail: "mimolette floats (pin: tag)"},
		// eclipse-temurin: build counters after _, Java 8 updates, GA builds.
		{file: "eclipse-temurin", current: "21.0.1_12-jdk-jammy", want: "26.0.2_10-jdk-jammy", typ: "major"},
		{file: "eclipse-temurin", current: "11.0.20.1_1-jdk", want: "26.0.2_10-jdk"},
		{file: "eclipse-temurin", current: "8u402-b06-jdk-jammy", want: "8u502-b07-jdk-jammy", typ: "minor"},
		{file: "eclipse-temurin", current: "8-jdk", reason: ReasonFloating, detail: "8-jdk floats, now 8u502-b07-jdk (pin: tag)"},
		{file: "eclipse-temurin", current: "26_35-jdk-jammy", want: "26.0.2_10-jdk-jammy", typ: "patch"},
		{file: "eclipse-temurin", current: "17.0.11_9-jdk-nanoserver-1809", want: "24_36-jdk-nanoserver-1809",
			detail: "26.0.2 only as jdk-nanoserver, jdk-nanoserver-ltsc2022, jdk-nanoserver-ltsc2025, jdk, 24 more" + win1809},
		{file: "eclipse-temurin", current: "21-jdk-alpine", reason: ReasonFloating,
			detail: "21-jdk-alpine floats, now 21.0.12_8-jdk-alpine (pin: tag)"},
		{file: "elasticsearch", current: "7.17.21", want: "9.5.2"},
		{file: "busybox", current: "1.36.1-glibc", want: "1.38.0-glibc"},
		{file: "busybox", current: "glibc", reason: ReasonFloating, detail: "glibc floats (pin: tag)"},
		// bitnami: variant with a number, then the rebuild counter.
		{file: "bitnami-redis", current: "7.2.4-debian-12-r3", want: "7.4.1-debian-12-r2", detail: "7.4.2 only as debian-13"},
		{file: "bitnami-redis", current: "7.2.4-debian-11-r2", want: "7.2.4-debian-11-r3", typ: "build",
			detail: "7.4.2 only as debian-13"},
		{file: "bitnami-redis", current: "7.4.1-debian-12-r2", reason: ReasonOtherVariant, detail: "7.4.2 only as debian-13"},
		// UBI: builds with and without an epoch; the release floats.
		{file: "ubi9", current: "9.3-1361.1699548029", want: "9.7-1763362218", typ: "minor"},
		{file: "ubi9", current: "9.0.0-1468", want: "9.7-1763362218"},
		{file: "ubi9", current: "9.3", reason: ReasonFloating, detail: "9.3 floats, now 9.3-1610 (pin: tag)"},
		{file: "ubi9", current: "9.3-1361", reason: ReasonFloating, detail: "9.3-1361 floats, now 9.3-1361.1699548029 (pin: tag)"},
		// SUSE BCI: five-number versions; MAJOR-RELEASE.REBUILD.
		{file: "bci-base", current: "15.5.36.5.14", want: "15.7.11.33", typ: "minor"},
		{file: "bci-base", current: "15.6", reason: ReasonFloating, detail: "15.6 floats, now 15.6.47.20.5 (pin: tag)"},
		{file: "bci-nodejs", current: "18-10.2", want: "22-14.8"},
		{file: "bci-nodejs", current: "18", reason: ReasonFloating, detail: "18 floats, now 18-11.5 (pin: tag)"},
		{name: "bci-nodejs allow minor", file: "bci-nodejs", spec: Spec{Allow: "minor"}, current: "18-10.2", want: "18-11.5", typ: "build"},
		// Windows Server Core: the build is the OS.
		{file: "windows-servercore", current: "10.0.17763.5458", want: "10.0.17763.5696"},
		{file: "windows-servercore", current: "10.0.20348.2340-amd64", want: "10.0.20348.2402-amd64"},
		{file: "windows-servercore", current: "10.0.19041.1415", reason: ReasonOtherOS,
			detail: "10.0.26100.2033 is newer but for another Windows OS build (10.0.26100, not 10.0.19041): a container's OS build must match its node's, so it is never proposed"},
		{file: "windows-servercore", current: "1809", reason: ReasonFloating, detail: "1809 floats (pin: tag)"},
		{file: "windows-servercore", current: "2004-amd64", reason: ReasonFloating, detail: "2004-amd64 floats (pin: tag)"},
		{file: "windows-servercore", current: "ltsc2022", reason: ReasonFloating, detail: "ltsc2022 floats (pin: tag)"},
		// registry.k8s.io and quay.io.
		{file: "k8s-etcd", current: "3.5.10-0", want: "3.6.0-0"},
		{file: "k8s-kube-proxy", current: "v1.29.3", want: "v1.31.1"},
		{file: "k8s-kube-proxy", current: "v1.31.0-alpha.0", want: "v1.31.1"},
		{file: "k8s-pause", current: "3.9", want: "3.10.1"},
		{file: "k8s-coredns", current: "v1.10.1", want: "v1.12.0"},
		{file: "k8s-coredns", current: "1.7.0", want: "1.8.0"},
		{file: "prometheus", current: "v2.51.2", want: "v2.53.1"},
		{file: "prometheus", current: "v3.0.0-beta.0", want: "v3.0.0-rc.0"},
		{file: "prometheus", current: "main", reason: ReasonFloating, detail: "main floats (pin: tag)"},
		// minio: a date-time as the version, .fips and -cpuv1 variants.
		{file: "minio", current: "RELEASE.2024-03-05T04-48-44Z", want: "RELEASE.2024-06-04T19-20-08Z",
			detail: "2024-07-04T14-25-45Z only as fips"},
		{file: "minio", current: "RELEASE.2024-03-05T04-48-44Z.fips", want: "RELEASE.2024-07-04T14-25-45Z.fips"},
		{file: "minio", current: "RELEASE.2024-03-05T04-48-44Z-cpuv1", want: "RELEASE.2024-06-04T19-20-08Z-cpuv1",
			detail: "2024-07-04T14-25-45Z only as fips"},
		// grafana: -ubuntu, -preview, -security-01.
		{file: "grafana", current: "10.4.2", want: "11.1.0"},
		{file: "grafana", current: "10.4.2-ubuntu", want: "11.1.0-ubuntu"},
		{file: "grafana", current: "11.0.0-preview-ubuntu", want: "11.1.0-ubuntu"},
		{file: "grafana", current: "10.4.2-security-01", want: "11.1.0-security-01"},
		{file: "grafana", current: "main-ubuntu", reason: ReasonFloating, detail: "main-ubuntu floats (pin: tag)"},
		// gitlab-runner: OS and arch before the version, commits as tags.
		{file: "gitlab-runner", current: "alpine-v16.11.0", want: "alpine-v17.0.0"},
		{file: "gitlab-runner", current: "alpine3.19-v16.11.0", want: "alpine3.19-v17.0.0"},
		{file: "gitlab-runner", current: "alpine3.18-v16.10.0", want: "alpine3.18-v16.11.0"},
		{file: "gitlab-runner", current: "v17.0.0-rc1", want: "v17.0.0"},
		{file: "gitlab-runner", current: "alpine-bleeding", reason: ReasonFloating, detail: "alpine-bleeding floats (pin: tag)"},
		{file: "gitlab-runner-helper", current: "x86_64-v16.11.0", want: "x86_64-v17.0.0"},
		{file: "gitlab-runner-helper", current: "alpine3.19-x86_64-v16.11.1", want: "alpine3.19-x86_64-v17.0.0"},
		{file: "gitlab-runner-helper", current: "x86_64-v16.11.1-servercore1809", want: "x86_64-v17.0.0-servercore1809"},
		{file: "gitlab-runner-helper", current: "x86_64-8fa89735", reason: ReasonNoVersion,
			detail: "x86_64-8fa89735 has no version to compare, only a commit id: set a pattern and versioning to order such tags"},
		{file: "elastic", current: "8.14.1-arm64", reason: ReasonOtherVariant, detail: "8.15.0 only as plain"},
	})
}
