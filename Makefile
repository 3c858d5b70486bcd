# The two commands of the README: `make run` (the main job) and `make test` (the tests).
# Both set up what they need on a fresh machine: a virtualenv with the pinned packages, and
# (through incident-graph itself) Neo4j Community resolved from Maven Central.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test install schema-sdl clean browser

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP) api/static/vendor/cytoscape.min.js
	$(BIN)/incident-graph up

test: $(STAMP) api/static/vendor/cytoscape.min.js browser
	$(BIN)/python -m pytest

# The page's graph library, from the npm registry (package-lock.json pins it), bundled into the
# package so the page works offline. api/static/vendor/ is generated and gitignored.
api/static/vendor/cytoscape.min.js: package.json package-lock.json
	npm ci --no-audit --no-fund
	mkdir -p $(dir $@)
	cp node_modules/cytoscape/dist/cytoscape.min.js $@

# Debian's chromium for the page tests (playwright drives it; no browser download).
browser:
	@test -x /usr/bin/chromium || (apt-get update -q && apt-get install -y -q chromium chromium-driver)

clean:
	-$(BIN)/incident-graph neo4j stop
	rm -rf $(VENV) .incident-graph node_modules api/static/vendor artifacts
