# remindd — the two commands a new user needs are `make run` and `make test`.
SWIFT ?= swift
CONFIG ?=
ARGS ?=

.PHONY: all build release run test deps format clean

all: build

deps:
	@scripts/ensure-deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# Runs the daemon in the foreground on embedded defaults: state in ./.remindd
# (or $$XDG_STATE_HOME/remindd), socket ./remindd.sock (or $$XDG_RUNTIME_DIR).
run: build
	$(SWIFT) run remindd $(if $(CONFIG),--config $(CONFIG)) $(ARGS)

# The whole test suite: unit, in-process API and end-to-end tests against the
# real binary, a real journald and real sockets.
test: deps
	$(SWIFT) build --build-tests
	scripts/run-tests.sh

format:
	$(SWIFT) format --in-place --recursive --parallel Sources Tests Package.swift

clean:
	rm -rf .build
