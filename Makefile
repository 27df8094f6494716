# The contributor loop (CONTRIBUTING.md). A Makefile because make is on every machine that builds kgroup and
# needs nothing installed first; every target runs the tools of the project's virtual environment.
#
#   make dev       the virtual environment with the test and lint tools (.venv)
#   make check     everything a contributor runs before a commit, offline: lint, types, contracts, docs,
#                  duplicates, the offline tests (2 min 38 s on a fresh clone, 2 quiet cores)
#   make static    check without the tests: what CI runs before the whole suite
#   make fast      the seconds-long part (what pre-commit runs)
#   make test      the whole suite, live brokers and Spark included
#   make fix       let ruff fix what it can and format the code (ruff format)

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := check

VENV ?= .venv
PY := $(VENV)/bin/python
# What `duplicates` compares against: HEAD (your uncommitted change); `make check BASE=main` for a branch.
BASE ?= HEAD

.PHONY: dev check static fast lint types contracts docs duplicates test-offline test fix kafka-jars

dev:
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -e '.[dev]'

check: static test-offline

static: lint types contracts docs duplicates

fast: lint docs

lint:
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

types:
	$(PY) -m tools.typecheck

contracts:
	$(VENV)/bin/lint-imports

docs:
	$(PY) -m tools.check_docs

# `duplicates` is a workplace tool, not a package: where it is missing the step says so and passes. It lists
# places where your change wrote six or more lines again (and always exits 0). A row is a place to look, not
# a verdict: rows alike only in shape are shown; a run copied to the letter fails the step.
duplicates:
	@if ! command -v duplicates >/dev/null; then echo "duplicates: not installed here, skipped"; exit 0; fi; \
	out="$$(duplicates --change --base $(BASE))"; echo "$$out"; \
	if echo "$$out" | grep -E '^D[0-9]+ ' | grep -qv ' shape'; then \
	  echo "duplicates: the change copies code (a row without 'shape' above); reuse it instead" >&2; exit 1; fi

# Offline tests are independent of each other, so they run on every core (pytest-xdist): about half the
# wall time on two cores. The live suite shares one broker per session and stays in one process.
# The differential oracle (tests/oracle) draws ORACLE_CASES states per assignor and release here, a quarter
# of what CI's whole suite draws (600): it was a third of the loop's time. A state either run finds failing
# is kept in tests/oracle/fixed and replayed by both (python -m tests.oracle.record).
ORACLE_CASES ?= 150
test-offline:
	KGROUP_ORACLE_CASES=$(ORACLE_CASES) $(PY) -m pytest -q -n auto -m "not live and not spark"

test:
	$(PY) -m pytest

fix:
	$(PY) -m ruff check --fix .
	$(PY) -m ruff format .

# The Apache Kafka jars the live tests run (tests/kafka; KGROUP_KAFKA_VERSION picks the release).
kafka-jars:
	$(PY) -m tests.kafka.jars
