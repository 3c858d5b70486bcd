FROM python:3.11-slim
WORKDIR /app
COPY . .
RUN pip install --no-cache-dir .
EXPOSE 8000
CMD ["incident-graph", "up", "--external-neo4j", "--host", "0.0.0.0", "--port", "8000"]
