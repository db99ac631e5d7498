#!/usr/bin/env bash
# The one test command: swagger metadata, type-check, lint, then every Jest test (unit, e2e,
# browser) against real PostgreSQL and Redis. Prints "N passed, N failed" last.
set -uo pipefail
cd "$(dirname "$0")/.."
# Local binaries directly: every npx call would repeat npm's configuration warnings.
export PATH="$PWD/node_modules/.bin:$PATH"
node scripts/gen-swagger-metadata.mjs >/dev/null 2>&1 || { echo "swagger metadata generation failed (type errors?)"; tsc --noEmit -p tsconfig.json | head -50; echo "0 passed, 1 failed"; exit 1; }
echo "== typecheck"; tsc --noEmit -p tsconfig.json || { echo "0 passed, 1 failed"; exit 1; }
echo "== lint"; eslint "src/**/*.ts" "test/**/*.ts" || { echo "0 passed, 1 failed"; exit 1; }
echo "== format"; prettier --check --log-level warn . || { echo "Prettier: run npm run format"; echo "0 passed, 1 failed"; exit 1; }
echo "== lock"; node scripts/lock-platforms.mjs --check || { echo "package-lock.json lacks platform entries: run node scripts/lock-platforms.mjs"; echo "0 passed, 1 failed"; exit 1; }
mkdir -p var
echo "== jest"
rm -f var/jest-results.json
jest --json --outputFile=var/jest-results.json "$@"
status=$?
# Browser tests keep their screenshots as artefacts (test/support/browser.ts).
shots=$(ls var/screenshots/*.png 2>/dev/null | wc -l)
[ "$shots" -gt 0 ] && echo "Browser screenshots: $shots in $PWD/var/screenshots/"
node -e '
const fs = require("fs");
if (!fs.existsSync("./var/jest-results.json")) { console.log("0 passed, 1 failed"); process.exit(0); }
const r = require("./var/jest-results.json");
const failedSuites = r.testResults.filter((s) => s.status === "failed" && s.assertionResults.length === 0).length;
console.log(`${r.numPassedTests} passed, ${r.numFailedTests + failedSuites} failed`);
' || echo "0 passed, 1 failed"
exit $status
