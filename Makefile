# quarry: `make run` starts it; `make test test-podman` passes the tests, as
# CI runs them (.ci/run). Each installs what a fresh Debian/Ubuntu machine
# lacks through scripts/ and builds the sandbox image when it is missing:
# run the Docker engine and debootstrap; test also every program, Python
# module and file the tests drive, as scripts/host.tsv lists them with their
# packages; test-podman rootful and rootless Podman (as root: it adds the
# user quarry-ci). Quiet when everything is there.

SHELL   := /bin/bash
GO      ?= go
BIN     ?= ./quarry
ARGS    ?=
BENCHTIME ?= 1s
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo none)
DATE    ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
LDFLAGS := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT) -X main.date=$(DATE)
# The offline image build runs debootstrap, which needs root.
SUDO    := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)
BENCH_PKGS = $(shell grep -rl --include='*_test.go' '^func Benchmark' . | xargs -r -n1 dirname | sort -u)

export PATH := $(PATH):/usr/local/go/bin

.PHONY: run test test-podman test-terminal build image deps docker bench lint lint-python fmt-check vet pytest clean

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) .

docker:
	@scripts/ensure-docker.sh

# What the tests drive besides the engine (scripts/host.tsv), installed
# and then checked, so a missing one is named before any test runs.
deps: docker
	@scripts/install-deps.sh test

# Builds the sandbox image for the current recipe when the engine lacks it.
image: build docker
	@$(BIN) sandbox status >/dev/null 2>&1 || { scripts/install-deps.sh image && $(SUDO) $(BIN) sandbox build; }

# With no model set up (quarry config check resolves the configuration as
# the chat would, Ollama probe included), a bare `make run` shows the
# scripted demo instead of ending in "no model is set up".
run: build image
	@if [ -n "$(ARGS)" ] || $(BIN) config check >/dev/null 2>&1; then \
		echo "$(strip $(BIN) $(ARGS))"; exec $(BIN) $(ARGS); \
	else \
		echo "make run: no model is set up ($(BIN) config check says what to set): running $(BIN) demo"; exec $(BIN) demo; \
	fi

fmt-check:
	@out="$$(gofmt -l .)"; if [ -n "$$out" ]; then echo "gofmt -l: these files need gofmt -w:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

# The kernel's Python (pykernel/): ruff and mypy, and its pytest tests, in
# a test-only image derived from the sandbox image (scripts/python-tools.sh).
lint-python: image
	@BIN=$(BIN) scripts/python-tools.sh lint

pytest: image
	@BIN=$(BIN) scripts/python-tools.sh pytest

lint: fmt-check vet lint-python

# The Docker-backed tests run for real here: the engine and image are made
# ready first, and the sandbox packages run with -v so their output shows it.
# The kernel's Python is tested first, by pytest (make pytest).
test: image deps lint pytest
	@$(BIN) sandbox status
	@rc=0; \
	echo "CI=$${CI:-} go test -count=1 <all packages but sandbox>"; \
	CI=$${CI:-} $(GO) test -count=1 -timeout 25m $$($(GO) list ./... | grep -v '/sandbox') || rc=1; \
	echo "CI=$${CI:-} go test -count=1 -v ./sandbox/...   (Docker-backed)"; \
	CI=$${CI:-} $(GO) test -count=1 -timeout 25m -v ./sandbox/... || rc=1; \
	exit $$rc

# Podman, rootful and rootless: the sandbox suite, the save/load round trip
# from Docker and the headless variance report (scripts/test-podman.sh).
test-podman: image
	@$(SUDO) env CI=$${CI:-} GO="$$(command -v $(GO))" BIN=$(BIN) scripts/test-podman.sh

# The chat in xterm -ti vt340, kitty and mlterm under Xvfb, checked on
# screenshots; also part of `make test` (the end-to-end tests, e2e/).
test-terminal: image deps
	CI=$${CI:-} $(GO) test -count=1 -v -run '^TestTerminalScreenshots$$' ./e2e

# One package at a time (-p 1): benchmarks in two test binaries at once
# would time each other. BENCHTIME=1x runs each benchmark once.
bench:
	$(GO) test -p 1 -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) $(BENCH_PKGS)

clean:
	rm -rf $(BIN) dist completions manpages
