#!/usr/bin/env bash
# Shared by .ci/run and .ci/steps/*.sh. A step is a script run from the repository root; its
# output goes to $CI_LOGS/<step>.log and is shown (last lines) only when it fails. A step that
# prints a last line "N passed, N failed" (the test suite) contributes those counts; any other
# step counts as one passed or one failed check.
set -uo pipefail

CI_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CI_LOGS="${CI_LOGS:-$CI_ROOT/var/ci}"
CI_TMP="${CI_TMP:-$(mktemp -d "${TMPDIR:-/tmp}/sps-ci.XXXXXX")}"
export CI_ROOT CI_LOGS CI_TMP
CI_PASSED=0
CI_FAILED=0
CI_SUMMARY=()
mkdir -p "$CI_LOGS"

# The Node LTS the image runs on (the Dockerfile's FROM node:<major>), from the npm registry's
# `node` package (real binaries, no download from elsewhere). Prints the bin directory.
ci_lts_bin() {
  local major
  major=$(sed -nE 's/^FROM node:([0-9]+).*/\1/p' "$CI_ROOT/Dockerfile" | head -1)
  [ -n "$major" ] || { echo "Dockerfile has no FROM node:<major>" >&2; return 1; }
  local dir="$CI_TMP/node$major"
  if [ ! -x "$dir/node_modules/.bin/node" ]; then
    npm install --prefix "$dir" --no-audit --no-fund --no-save "node@$major" >"$dir.install.log" 2>&1 ||
      { cat "$dir.install.log" >&2; return 1; }
  fi
  local v
  v=$("$dir/node_modules/.bin/node" -v) || return 1
  [[ "$v" == "v$major."* ]] || { echo "node@$major installed $v" >&2; return 1; }
  echo "$dir/node_modules/.bin"
}

# A throwaway database name on the configured server (dropped by ci_drop_db).
ci_db_url() {
  local base="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/social_publishing}"
  echo "${base%/*}/$1"
}
ci_drop_db() {
  node -e '
    const { Client } = require(require.resolve("pg", { paths: [process.env.CI_ROOT] }));
    const u = new URL(process.argv[1]); const name = u.pathname.slice(1); u.pathname = "/postgres";
    const c = new Client({ connectionString: u.toString() });
    c.connect().then(() => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).finally(() => c.end());
  ' "$1" >/dev/null 2>&1 || true
}

# Waits until a URL answers 2xx (up to $2 seconds, default 60) while process $3 (optional) lives.
ci_wait_http() {
  local url=$1 secs=${2:-60} pid=${3:-}
  for _ in $(seq 1 "$secs"); do
    node -e 'fetch(process.argv[1]).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' "$url" && return 0
    if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then echo "process $pid exited before $url answered" >&2; return 1; fi
    sleep 1
  done
  echo "$url did not answer within ${secs}s" >&2
  return 1
}

# A free TCP port on 127.0.0.1.
ci_free_port() {
  node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'
}

ci_step() {
  local script=$1 name
  name=$(basename "$script" .sh)
  local log="$CI_LOGS/$name.log" start=$SECONDS status
  echo "== $name"
  (cd "$CI_ROOT" && bash "$script") >"$log" 2>&1
  status=$?
  local secs=$((SECONDS - start)) last p f
  last=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -1)
  if [ -n "$last" ]; then
    p=${last%% passed*}; f=${last#*, }; f=${f%% failed}
    [ "$status" != 0 ] && [ "$f" = 0 ] && f=1
  elif [ "$status" = 0 ]; then p=1; f=0; else p=0; f=1; fi
  CI_PASSED=$((CI_PASSED + p)); CI_FAILED=$((CI_FAILED + f))
  if [ "$status" = 0 ]; then
    CI_SUMMARY+=("ok    $name (${secs}s)${last:+: $last}")
  else
    CI_SUMMARY+=("FAIL  $name (${secs}s)${last:+: $last} — log: $log")
    echo "-- $name failed (exit $status); last lines of $log:"
    tail -n 80 "$log"
  fi
}

ci_finish() {
  echo
  printf '%s\n' "${CI_SUMMARY[@]}"
  rm -rf "$CI_TMP"
  echo "$CI_PASSED passed, $CI_FAILED failed"
  [ "$CI_FAILED" = 0 ]
}
