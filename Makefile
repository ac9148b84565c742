# imagebot: the two commands a new user runs are `make demo` and `make test`.
GO      ?= go
BIN     := bin/imagebot
# The version as GoReleaser writes it: the tag without its "v" (1.2.3), so
# that `imagebot version` reads the same however the binary was built.
VERSION ?= $(patsubst v%,%,$(shell git describe --tags --always --dirty 2>/dev/null || echo dev))
LDFLAGS := -X main.version=$(VERSION)

# The image's only timestamp and its revision label come from the commit, so
# one commit gives one image digest (reproducible-builds.org's variable).
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
REVISION          ?= $(shell git rev-parse HEAD 2>/dev/null)
IMAGE_DIR         ?= bin/image
PLATFORMS         ?= linux/amd64,linux/arm64

# GoReleaser, pinned, built from the module proxy (checked against the Go
# checksum database) rather than downloaded as a binary. v2.16.0 is the
# newest whose go.mod accepts our Go 1.26 toolchain (v2.18 wants 1.27) and
# whose dependencies the proxy serves in full (v2.17's go-msix is refused).
GORELEASER ?= github.com/goreleaser/goreleaser/v2@v2.16.0

.PHONY: build image release-snapshot release demo test test-slow test-all race vet fuzz bench lint clean kube test-kube

## build: bin/imagebot for this machine.
build:
	$(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/bot

## image: the container image (linux/amd64 and linux/arm64) as an OCI layout
## in bin/image, built without Docker or network (internal/release).
image:
	$(GO) run ./internal/release/cmd/image -out $(IMAGE_DIR) -platforms $(PLATFORMS) \
		-version $(VERSION) -revision "$(REVISION)" -created $(SOURCE_DATE_EPOCH)

## release-snapshot: the release archives and checksums.txt in dist/, from
## any commit, publishing nothing. The first run compiles GoReleaser (minutes).
release-snapshot:
	$(GO) run $(GORELEASER) release --snapshot --clean --skip=publish

## release: publish the tag's GitHub release (the release workflow runs it).
release:
	$(GO) run $(GORELEASER) release --clean

## demo: run the whole job against an embedded registry, git remote and GitHub.
demo: build
	$(GO) run ./cmd/demo -imagebot $(BIN)

## test: the whole suite (unit, golden, fuzz seeds, CLI scripts, layering)
## but the SLOW_TESTS, which test-slow runs. Measured (BENCHMARKS.md,
## section 5, "How measured"): 51-57 s wall and 99-111 s CPU with a warm
## build cache on an idle 2-core VM, a fresh clone at a new path included
## (-trimpath, below), timed with `/usr/bin/time make test` (stop 24:
## 113-116 s and 212-225 s). The target is
## 60 s / 120 s.
## A loaded machine or a cold cache is slower still.
## Each package's line prints as it finishes. `go vet` runs every analyzer
## once, on test files too, so `go test` does not repeat its subset
## (-vet=off). The tests' git remotes answer in process; a few end-to-end
## scenarios (*HTTPBackend) run on git's own http-backend.
## The tests write thousands of small git files (remotes, the sessions'
## clones, checkouts): on tmpfs (/dev/shm, where the machine has one) they
## cost about half the CPU they cost on a disk. TEST_TMPDIR= keeps $TMPDIR.
TEST_TMPDIR ?= $(shell [ -d /dev/shm ] && [ -w /dev/shm ] && echo /dev/shm)
## -trimpath keeps the checkout's path out of the build cache's keys: a
## fresh clone at another path (as CI makes) then finds its packages
## compiled, instead of compiling every package of the module again
## (about 25 s more of `make test`).
TEST_ENV    := $(if $(TEST_TMPDIR),TMPDIR=$(TEST_TMPDIR)) GOFLAGS='$(GOFLAGS) -trimpath'
## The suite's processes are short-lived and allocate much: a collection
## at 5x the live heap instead of 2x takes about 8 s of CPU off `make test`
## (BENCHMARKS section 5) for about 80 MB more at its peak, and the soft
## limit keeps any one process near 1 GiB. The heap measurements
## (SLOW_TESTS) run without it.
TEST_GC     := GOGC=400 GOMEMLIMIT=1GiB

## SLOW_TESTS are the slower parts, which `make test` skips and
## `make test-slow` (run by .ci/run too) runs alone: the end-to-end
## scenarios on git's own http-backend (a git process per request), the
## release image, which compiles imagebot, and the two heap measurements,
## which cannot run beside other tests. internal/docs checks that each
## name still matches a test.
SLOW_TESTS := ^(Test[A-Za-z]*HTTPBackend|TestImage|TestSessionMemoryBounded|TestForeignPullRequestsCostNoMemory)$$
SLOW_PKGS  := ./cmd/bot ./internal/gitops ./internal/release

## `go mod tidy -diff` first: a go.mod that marks an imported module
## indirect (or keeps one nothing imports) fails here, not in a release.
test:
	$(GO) mod tidy -diff
	$(TEST_ENV) $(GO) vet ./...
	$(TEST_ENV) $(TEST_GC) $(GO) test -count=1 -vet=off -skip '$(SLOW_TESTS)' ./...

## test-slow: the SLOW_TESTS alone.
test-slow:
	$(TEST_ENV) $(GO) test -count=1 -vet=off -run '$(SLOW_TESTS)' $(SLOW_PKGS)

## test-all: the suite with every git remote served by `git http-backend`
## (gittest.BackendEnv), the slow matrix that holds the in-process remote
## to git's behaviour everywhere. Run it after touching internal/testing/gittest.
test-all:
	$(TEST_ENV) $(GO) vet ./...
	$(TEST_ENV) IMAGEBOT_GITSERVER=http-backend $(GO) test -count=1 -vet=off ./...

## race: the whole suite under the race detector. Several minutes on two
## cores, so not part of `make test`; run it after touching anything that
## runs concurrently (registry lookups, serve's fleets, gitops runs).
race:
	$(TEST_ENV) $(GO) test -race -count=1 ./...

## fuzz: run the rewriter's fuzz target for a while (FUZZTIME=1m).
FUZZTIME ?= 30s
fuzz:
	$(GO) test ./internal/rewrite -run '^$$' -fuzz FuzzRewrite -fuzztime $(FUZZTIME)

## bench: the published figures (BENCHMARKS.md). `plan` on 5,000 manifests
## over 500 repositories at 0 and 20ms per registry request and 8 and 32
## requests in flight, then the second plan with --cache (within the TTL,
## and revalidated); then `serve --once` over 200 repositories of 50
## manifests, 1, 4 and 8 at once; then `plan` on issue 21's chart workload
## (200 HelmReleases over 20 HTTP repositories of 5,000 versions, 50 OCI
## charts, 20ms per request), whose own process must stay within 150 MiB
## of RSS; then a push notification to a serve of 200 repositories, 10 of
## which reference the image (p50/p99 to the first and tenth pull request).
## Each prints wall time, requests by kind,
## the round-trip bound and peak RSS; the other benchmarks follow.
## BENCHTIME=1x is the quick run; IMAGEBOT_BENCH_CPUPROFILE=file profiles
## the plan's timed loop. `make test` runs the same workloads small
## (TestWorkloadCost, TestServeFleet) and checks their request counts.
BENCHTIME ?= 3x
bench:
	$(GO) test -run '^$$' -bench 'Plan5000x500' -benchtime $(BENCHTIME) ./internal/plan
	$(GO) test -run '^$$' -bench 'Fleet200x50' -benchtime 1x -timeout 30m ./cmd/bot
	$(GO) test -run '^$$' -bench 'PlanCharts200x20' -benchtime $(BENCHTIME) ./internal/plan
	$(GO) test -run '^$$' -bench 'HookToPR' -benchtime 10x ./internal/serve
	$(GO) test -run '^$$' -bench . -skip 'Plan5000x500|Fleet200x50|PlanCharts200x20|HookToPR' -benchmem -benchtime $(BENCHTIME) ./...

## kube: kube-apiserver and etcd for the drift scenario tests, compiled from
## the Go module proxy into a cache outside the repository
## (~/.cache/imagebot-kube); the first build is slow (docs/development.md),
## later runs find the binaries and do nothing.
kube:
	@GO=$(GO) scripts/kube.sh >/dev/null

## test-kube: the tests that need a real API server (TestDriftKube: drift's
## five kinds through the API, deploy/ dry-run), built by make kube.
test-kube: kube
	IMAGEBOT_KUBE_BIN="$$(GO=$(GO) scripts/kube.sh)" $(TEST_ENV) $(GO) test -count=1 -vet=off -run 'TestDriftKube' ./cmd/bot

clean:
	rm -rf bin dist
