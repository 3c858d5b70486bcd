# The two commands of the README: `make run` (the main job) and `make test` (the tests).
# Both set up what they need on a fresh machine: a virtualenv with the pinned packages, and
# (through incident-graph itself) Neo4j Community resolved from Maven Central.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test install schema-sdl clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/incident-graph up

test: $(STAMP)
	$(BIN)/python -m pytest

clean:
	-$(BIN)/incident-graph neo4j stop
	rm -rf $(VENV) .incident-graph
