#!/usr/bin/env bash
# The whole test suite: static checks (tsc, ESLint, knip), the build (dist/), then the vitest
# projects cheapest first, each only when the one before passed: unit (pure), process (child
# processes, the disk, servers on 127.0.0.1), then integration and end-to-end tests (the packed
# package among them) against real Kafka and ClickHouse, which scripts/infra.sh installs and starts
# (idempotently), and the dashboard in headless Chromium (scripts/chromium.sh installs Debian's package).
# Ends with one plain line "tests: N passed, N failed" summed over the three vitest projects.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .cache
rm -f .cache/vitest-unit.json .cache/vitest-process.json .cache/vitest-integration.json

npx tsc --noEmit -p tsconfig.json
npx eslint .
npx knip
# dist/ (what bin/tracecheck.mjs runs): the end-to-end tests run the CLI as users do.
npm run build --silent

status=0
npx vitest run --project unit --reporter=default --reporter=json --outputFile=.cache/vitest-unit.json || status=$?
if [ "$status" -eq 0 ]; then
  npx vitest run --project process --reporter=default --reporter=json --outputFile=.cache/vitest-process.json || status=$?
fi
if [ "$status" -eq 0 ]; then
  bash scripts/infra.sh up
  # Debian's chromium for the dashboard's browser tests (apt-get when missing, like ClickHouse).
  bash scripts/chromium.sh
  npx vitest run --project integration --no-file-parallelism --reporter=default --reporter=json --outputFile=.cache/vitest-integration.json || status=$?
fi

node -e '
const fs = require("node:fs");
let passed = 0, failed = 0, failedFiles = 0;
for (const f of [".cache/vitest-unit.json", ".cache/vitest-process.json", ".cache/vitest-integration.json"]) {
  if (!fs.existsSync(f)) continue;
  const r = JSON.parse(fs.readFileSync(f, "utf8"));
  passed += r.numPassedTests; failed += r.numFailedTests;
  // A file whose hooks failed (beforeAll, a server that would not start) fails no test of its own.
  failedFiles += (r.testResults ?? []).filter((t) => t.status === "failed" && (t.assertionResults ?? []).every((a) => a.status !== "failed")).length;
}
console.log(`tests: ${passed} passed, ${failed} failed` + (failedFiles ? `; ${failedFiles} test file(s) failed outside their tests` : ""));
'
exit "$status"
