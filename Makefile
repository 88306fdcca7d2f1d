# AstraSIP — the two set-up commands are `make demo` and `make test` (see README.md).
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)
export SWIFT_BACKTRACE ?= enable=no
SWIFT ?= swift
FUZZ_SECONDS ?= 300
FUZZ_TARGETS ?=
# make install: where the tools, man pages and completions go (DESTDIR stages them for packagers);
# CONFIG=debug installs the debug build instead of the release one (the install test does).
PREFIX ?= /usr/local
DESTDIR ?=
CONFIG ?= release

.PHONY: all deps build build-release test demo bench fuzz lint docs clean install uninstall

all: build

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build

# Release tools link the Swift runtime, OpenSSL and libstdc++ statically: start-up is most of a
# one-shot run (docs/decisions.md D7; scripts/release-flags.sh).
build-release: deps
	$(SWIFT) build -c release --static-swift-stdlib $$(scripts/release-flags.sh)

## make test: install what is missing, build, run every test (unit, tool golden, real peers).
test: deps
	$(SWIFT) build --build-tests
	scripts/run-tests.sh

## make install: the release tools, their man pages, bash and zsh completions under
## $(DESTDIR)$(PREFIX) (scripts/install.sh); make uninstall removes exactly those files.
install:
	PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" CONFIG="$(CONFIG)" scripts/install.sh install

uninstall:
	PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" CONFIG="$(CONFIG)" scripts/install.sh uninstall

## make demo: install, build, and run the main job end to end.
demo: deps build-release
	scripts/demo.sh

## make bench: release-build benchmarks; stdout carries only their JSON (builds log to stderr).
bench: deps
	@scripts/bench.sh

## make fuzz: libFuzzer over every parser that takes outside bytes, FUZZ_SECONDS each (default 300),
## one JSON line per target (docs/fuzzing.md); FUZZ_TARGETS="sdp stun" picks targets.
fuzz: deps
	scripts/fuzz.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

## make docs: API documentation of the library products with docc, static site under .build/docs
## (scripts/docs.sh); fails on a broken symbol link or any other docc warning.
docs: deps
	scripts/docs.sh

lint:
	$(SWIFT) format lint -r Modules Tools Tests Benchmarks

clean:
	rm -rf .build .build-fuzz
