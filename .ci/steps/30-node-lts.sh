#!/usr/bin/env bash
# The supported range includes the LTS the image runs on (Dockerfile FROM node:<major>): on that
# Node, build, boot the built service, and run the e2e smoke tests.
. .ci/lib.sh
set -e
bin=$(ci_lts_bin)
export PATH="$bin:$PATH"
echo "node $(node -v)"
node -e '
  const range = require("./package.json").engines.node;
  const [maj, min, pat] = process.versions.node.split(".").map(Number);
  const ok = range.split("||").some((r) => {
    r = r.trim();
    const m = /^(\^|>=)(\d+)\.(\d+)\.(\d+)$/.exec(r);
    if (!m) throw new Error("unexpected engines range " + r);
    const want = [+m[2], +m[3], +m[4]];
    const cmp = maj - want[0] || min - want[1] || pat - want[2];
    return m[1] === "^" ? maj === want[0] && cmp >= 0 : cmp >= 0;
  });
  if (!ok) { console.error(`engines.node "${range}" excludes ${process.version}`); process.exit(1); }
  console.log(`engines.node "${range}" includes ${process.version}`);
'
npm run --silent build
db=$(ci_db_url "sps_ci_lts_$$")
port=$(ci_free_port)
pid=""
trap 'set +e; kill $pid 2>/dev/null; wait $pid 2>/dev/null; ci_drop_db "$db"' EXIT
DATABASE_URL=$db node dist/src/database/migrate.js
DATABASE_URL=$db PORT=$port REDIS_PREFIX="sps-ci-lts-$$" LOG_LEVEL=warn node dist/src/main.js &
pid=$!
ci_wait_http "http://127.0.0.1:$port/health/ready" 60 "$pid"
echo "booted on node $(node -v): /health/ready answers"
kill "$pid"; wait "$pid" || true
node node_modules/jest/bin/jest.js test/e2e/smoke.e2e-spec.ts test/e2e/publishing.e2e-spec.ts
