# The browser libraries of the page and of GraphiQL come from the npm registry at build time, as in
# `make vendor` (keep this list in step with VENDOR_SOURCES in the Makefile).
FROM node:20-slim AS vendor
WORKDIR /build
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund \
 && mkdir vendor \
 && cp node_modules/cytoscape/dist/cytoscape.min.js \
       node_modules/layout-base/layout-base.js \
       node_modules/cose-base/cose-base.js \
       node_modules/cytoscape-fcose/cytoscape-fcose.js \
       node_modules/chart.js/dist/chart.umd.min.js \
       node_modules/react/umd/react.production.min.js \
       node_modules/react-dom/umd/react-dom.production.min.js \
       node_modules/graphiql/graphiql.min.js \
       node_modules/graphiql/graphiql.min.css \
       vendor/

FROM python:3.11-slim
WORKDIR /app
COPY . .
COPY --from=vendor /build/vendor/ api/static/vendor/
RUN pip install --no-cache-dir . \
 && pip install --no-cache-dir --no-deps --ignore-requires-python --require-hashes -r ingest/models/trained-pipeline.txt
EXPOSE 8000
CMD ["incident-graph", "up", "--external-neo4j", "--host", "0.0.0.0", "--port", "8000"]
