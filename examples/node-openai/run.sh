#!/usr/bin/env bash
# Installs this recipe's pinned packages into ./node_modules (once) and runs the agent.
# Needs OTEL_EXPORTER_OTLP_ENDPOINT (tracecheck's OTLP/HTTP address) and OPENAI_BASE_URL.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
: "${OTEL_EXPORTER_OTLP_ENDPOINT:?set OTEL_EXPORTER_OTLP_ENDPOINT, e.g. http://127.0.0.1:4318}"
: "${OPENAI_BASE_URL:?set OPENAI_BASE_URL, e.g. http://127.0.0.1:8787/v1}"
if [ ! -f node_modules/.package-lock.json ] || ! cmp -s package-lock.json node_modules/.recipe-lock.json; then
  npm ci --no-audit --no-fund --loglevel=error >&2
  cp package-lock.json node_modules/.recipe-lock.json
fi
export OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT="${OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT:-true}"
exec node agent.js
