#!/usr/bin/env bash
# Installs this recipe's pinned packages into ./.venv (once) and runs the agent.
# Needs OTEL_EXPORTER_OTLP_ENDPOINT (tracecheck's OTLP/HTTP address) and OPENAI_BASE_URL.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
: "${OTEL_EXPORTER_OTLP_ENDPOINT:?set OTEL_EXPORTER_OTLP_ENDPOINT, e.g. http://127.0.0.1:4318}"
: "${OPENAI_BASE_URL:?set OPENAI_BASE_URL, e.g. http://127.0.0.1:8787/v1}"
if [ ! -f .venv/installed.txt ] || ! cmp -s requirements.txt .venv/installed.txt; then
  rm -rf .venv
  python3 -m venv .venv
  # uv installs the same pinned set as `.venv/bin/pip install -r requirements.txt`, with parallel
  # downloads: about 10 s where pip takes minutes.
  .venv/bin/pip install --quiet --disable-pip-version-check uv==0.13.8 >&2
  .venv/bin/uv pip install --quiet --python .venv/bin/python -r requirements.txt >&2
  cp requirements.txt .venv/installed.txt
fi
exec .venv/bin/python agent.py
