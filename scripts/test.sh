#!/usr/bin/env bash
# The whole test suite: static checks, unit tests, then integration and end-to-end tests against
# real Kafka and ClickHouse, which scripts/infra.sh installs and starts (idempotently).
set -euo pipefail
cd "$(dirname "$0")/.."
npx tsc --noEmit -p tsconfig.json
npx eslint .
npx vitest run --project unit
bash scripts/infra.sh up
npx vitest run --project integration --no-file-parallelism
