# imagebot: the two commands a new user runs are `make demo` and `make test`.
GO      ?= go
BIN     := bin/imagebot
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)

.PHONY: build demo test vet fuzz bench lint clean

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/bot

## demo: run the whole job against an embedded registry, git remote and GitHub.
demo: build
	./$(BIN) demo

## test: the whole suite (unit, golden, fuzz seeds, CLI scripts, layering).
test:
	$(GO) vet ./...
	$(GO) test -count=1 ./...

## fuzz: run the rewriter's fuzz target for a while (FUZZTIME=1m).
FUZZTIME ?= 30s
fuzz:
	$(GO) test ./internal/rewrite -run '^$$' -fuzz FuzzRewrite -fuzztime $(FUZZTIME)

## bench: `plan` on 5,000 manifests over 500 repositories, at 0 and 20ms per
## registry request and 8 and 32 requests in flight: wall time, requests by
## kind, the round-trip bound, peak RSS. BENCHTIME=1x is the CI-light run;
## IMAGEBOT_BENCH_CPUPROFILE=file profiles the timed loop.
BENCHTIME ?= 3x
bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) ./...

clean:
	rm -rf bin
