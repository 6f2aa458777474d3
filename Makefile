# remindd — the two commands a new user needs are `make run` and `make test`.
SWIFT ?= swift
CONFIG ?=
ARGS ?=

PREFIX ?= /usr/local
DESTDIR ?=
RELEASE_FLAGS = -c release

.PHONY: all build release run test deps format clean install uninstall

all: build

deps:
	@scripts/ensure-deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build $(RELEASE_FLAGS)

# Runs the daemon in the foreground on embedded defaults: state in ./.remindd
# (or $$XDG_STATE_HOME/remindd), socket ./remindd.sock (or $$XDG_RUNTIME_DIR).
run: build
	$(SWIFT) run remindd $(if $(CONFIG),--config $(CONFIG)) $(ARGS)

# The whole test suite: unit, in-process API and end-to-end tests against the
# real binary, a real journald and real sockets.
test: deps
	$(SWIFT) build --build-tests
	scripts/run-tests.sh

# Installs the stripped release binaries with their Swift runtime libraries, the units,
# the sysusers entry, the journald catalog, the default configuration and completions.
install: release
	PREFIX=$(PREFIX) DESTDIR=$(DESTDIR) scripts/install.sh "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)"

uninstall:
	PREFIX=$(PREFIX) DESTDIR=$(DESTDIR) scripts/install.sh --uninstall

format:
	$(SWIFT) format --in-place --recursive --parallel Sources Tests Package.swift

clean:
	rm -rf .build
