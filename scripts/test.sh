#!/usr/bin/env bash
# The one test command: swagger metadata, type-check, lint, then every Jest test (unit, e2e,
# browser) against real PostgreSQL and Redis. Prints "N passed, N failed" last.
set -uo pipefail
cd "$(dirname "$0")/.."
node scripts/gen-swagger-metadata.mjs >/dev/null 2>&1 || { echo "swagger metadata generation failed (type errors?)"; npx tsc --noEmit -p tsconfig.json | head -50; echo "0 passed, 1 failed"; exit 1; }
echo "== typecheck"; npx tsc --noEmit -p tsconfig.json || { echo "0 passed, 1 failed"; exit 1; }
echo "== lint"; npx eslint "src/**/*.ts" "test/**/*.ts" || { echo "0 passed, 1 failed"; exit 1; }
mkdir -p var
echo "== jest"
npx jest --json --outputFile=var/jest-results.json "$@"
status=$?
node -e '
const r = require("./var/jest-results.json");
const failedSuites = r.testResults.filter((s) => s.status === "failed" && s.assertionResults.length === 0).length;
console.log(`${r.numPassedTests} passed, ${r.numFailedTests + failedSuites} failed`);
' || echo "0 passed, 1 failed"
exit $status
