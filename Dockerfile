# The page's graph library comes from the npm registry at build time, as in `make`.
FROM node:20-slim AS vendor
WORKDIR /build
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

FROM python:3.11-slim
WORKDIR /app
COPY . .
COPY --from=vendor /build/node_modules/cytoscape/dist/cytoscape.min.js api/static/vendor/cytoscape.min.js
RUN pip install --no-cache-dir .
EXPOSE 8000
CMD ["incident-graph", "up", "--external-neo4j", "--host", "0.0.0.0", "--port", "8000"]
