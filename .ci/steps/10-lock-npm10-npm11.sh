#!/usr/bin/env bash
# The lock satisfies `npm ci` on npm 10 and npm 11 (npm 11 rejects a lock that lacks other
# platforms' optional binaries; npm 10 accepts more). `npm ci --dry-run` runs the same lock check
# as a real install; the real npm 11 install is .ci/run's own `npm ci`.
. .ci/lib.sh
set -e
dir="$CI_TMP/lock-check"
mkdir -p "$dir"
cp package.json package-lock.json "$dir/"
npm install --prefix "$CI_TMP/npm10" --no-audit --no-fund --no-save npm@10 >/dev/null
for npm in npm "$CI_TMP/npm10/node_modules/.bin/npm"; do
  v=$("$npm" -v 2>/dev/null)
  echo "npm $v: npm ci --dry-run"
  (cd "$dir" && "$npm" ci --dry-run --no-audit --no-fund 2>&1 | grep -v -e EBADENGINE -e 'Unknown user config' | tail -n 40; exit "${PIPESTATUS[0]}")
done
node scripts/lock-platforms.mjs --check
