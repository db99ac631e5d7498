#!/usr/bin/env bash
# npm run dev: set up and run the service in sandbox mode, in one command.
#   1. PostgreSQL and Redis: checked, started when installed but stopped (scripts/ensure-services.sh)
#   2. npm ci when node_modules is missing (no fallback to npm install), then build
#   3. migrations (the database is created when missing)
#   4. a first workspace, owner, profile and API key (DEV_KEY_RATE_LIMIT requests a minute, default
#      600), once: kept in var/first-key.json, so a rerun reuses it (a new one is made only when that workspace no longer exists)
#   5. the service (api + worker in one process, built-in network sandbox), with the Swagger URL
#      and the key printed once it answers. Ctrl-C stops it.
# Settings come from the environment, then ./.env (see .env.example); defaults fit a local machine.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -f .env ]; then
  # Values already in the environment win over .env.
  while IFS='=' read -r name value; do
    [[ "$name" =~ ^[A-Z_][A-Z0-9_]*$ ]] || continue
    value="${value%\"}"; value="${value#\"}"
    [ -n "${!name+x}" ] || export "$name=$value"
  done < <(grep -v '^\s*#' .env)
fi
export NODE_ENV="${NODE_ENV:-development}"
export SANDBOX_PLATFORMS="${SANDBOX_PLATFORMS:-true}"
export PORT="${PORT:-3000}"
export PUBLIC_BASE_URL="${PUBLIC_BASE_URL:-http://localhost:$PORT}"
export LOG_LEVEL="${LOG_LEVEL:-warn}"
# Operator endpoints (/metrics, /queues) need a token; a local one when none is configured.
export OPERATOR_TOKEN="${OPERATOR_TOKEN:-dev-operator-$(node -e 'process.stdout.write(require("crypto").randomBytes(12).toString("hex"))')}"

# package.json engines is the supported range; outside it (e.g. Node 20, end of life) npm warns
# EBADENGINE and things may work, but nothing is promised.
node -e '
  const range = require("./package.json").engines.node;
  const [maj, min, pat] = process.versions.node.split(".").map(Number);
  const ok = range.split("||").some((r) => {
    const m = /^(\^|>=)(\d+)\.(\d+)\.(\d+)$/.exec(r.trim());
    const cmp = maj - +m[2] || min - +m[3] || pat - +m[4];
    return m[1] === "^" ? maj === +m[2] && cmp >= 0 : cmp >= 0;
  });
  if (!ok) console.warn(`Note: Node ${process.version} is outside the supported range ${range} (package.json engines).`);
'

# shellcheck source=ensure-services.sh
. scripts/ensure-services.sh
ensure_services

if [ ! -d node_modules ]; then
  echo "Installing dependencies…"
  # npm ci only: the lock is the contract. A failure here is lock drift, not something to paper over.
  npm ci --no-audit --no-fund || { echo "npm ci failed: package-lock.json does not match package.json (see above)." >&2; exit 1; }
fi

echo "Building…"
mkdir -p var
npm run --silent build >var/build.log 2>&1 || { cat var/build.log >&2; echo "Build failed (log: var/build.log)." >&2; exit 1; }

echo "Migrating…"
npm run --silent db:migrate

mkdir -p var
key_file=var/first-key.json
workspace_id=""
if [ -f "$key_file" ]; then
  workspace_id=$(node -e 'try { process.stdout.write(require("./var/first-key.json").workspaceId || "") } catch {}')
  if [ -n "$workspace_id" ] && ! npm run --silent admin -- workspaces --json | node -e '
      let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => process.exit(JSON.parse(s).some((w) => w.id === process.argv[1]) ? 0 : 1));
    ' "$workspace_id"; then
    echo "The workspace in $key_file is gone (new database?); bootstrapping another."
    workspace_id=""
  fi
fi
if [ -z "$workspace_id" ]; then
  # The development key gets a generous ceiling (DEV_KEY_RATE_LIMIT, default 600 a minute): the
  # spec's default of 16 is for production keys, and Swagger UI exploration would hit 429 at once.
  npm run --silent admin -- bootstrap --workspace "Sandbox workspace" --email owner@example.com --plan pro \
    --rate-limit "${DEV_KEY_RATE_LIMIT:-600}" --json >"$key_file.tmp"
  mv "$key_file.tmp" "$key_file"
fi
api_key=$(node -e 'process.stdout.write(require("./var/first-key.json").apiKey)')
profile_id=$(node -e 'process.stdout.write(require("./var/first-key.json").profileId)')

node dist/src/main.js &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; exit 0' INT TERM
for _ in $(seq 1 60); do
  node -e 'fetch(process.argv[1]).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' "http://127.0.0.1:$PORT/health" && break
  kill -0 "$server" 2>/dev/null || { echo "The service exited during start-up." >&2; exit 1; }
  sleep 1
done

cat <<EOF

  Social Publishing Service — sandbox mode
  ─────────────────────────────────────────
  Swagger UI   $PUBLIC_BASE_URL/docs
  OpenAPI      $PUBLIC_BASE_URL/openapi.json
  Metrics      $PUBLIC_BASE_URL/metrics   Queues  $PUBLIC_BASE_URL/queues
               (operator token: $OPERATOR_TOKEN — Bearer, or Basic with it as password)
  API key      $api_key
  Profile      $profile_id
  (the key is kept in $key_file)

  Try it:
    curl -H "Authorization: Bearer $api_key" $PUBLIC_BASE_URL/v1/profile

  Ctrl-C stops the service.

EOF
wait "$server"
