#!/usr/bin/env bash
# MCP clients nobody here wrote: the current MCP Inspector (from the npm registry, on the image's
# Node, which it needs) lists the tools of the built service's /mcp with --strict, and must report
# no tool-schema portability problem at all (errors or warnings).
. .ci/lib.sh
set -e
bin=$(ci_lts_bin)
export PATH="$bin:$PATH"
inspector_version=2.12.0
dir="$CI_TMP/mcp-inspector"
if [ ! -x "$dir/node_modules/.bin/mcp-inspector" ]; then
  npm install --prefix "$dir" --no-audit --no-fund --no-save --ignore-scripts \
    "@modelcontextprotocol/inspector@$inspector_version" >"$dir.install.log" 2>&1 || { cat "$dir.install.log"; exit 1; }
fi
[ -f dist/src/main.js ] || npm run --silent build
db=$(ci_db_url "sps_ci_mcp_$$")
port=$(ci_free_port)
pid=""
trap 'set +e; kill $pid 2>/dev/null; wait $pid 2>/dev/null; ci_drop_db "$db"' EXIT
export DATABASE_URL=$db REDIS_PREFIX="sps-ci-mcp-$$" LOG_LEVEL=warn
node dist/src/database/migrate.js
key=$(node dist/src/cli/admin.js bootstrap --workspace "MCP check" --email ci@example.com --json | node -e 'let s="";process.stdin.on("data",(d)=>s+=d).on("end",()=>console.log(JSON.parse(s).apiKey))')
PORT=$port node dist/src/main.js &
pid=$!
ci_wait_http "http://127.0.0.1:$port/health/ready" 60 "$pid"
out="$CI_TMP/mcp-inspector.out"
status=0
"$dir/node_modules/.bin/mcp-inspector" --cli --server-url "http://127.0.0.1:$port/mcp" --transport http \
  --header "Authorization: Bearer $key" --method tools/list --strict >"$out.json" 2>"$out.err" || status=$?
cat "$out.err"
tools=$(node -e 'console.log(require(process.argv[1]).tools.length)' "$out.json")
echo "MCP Inspector $inspector_version --strict: $tools tools listed, exit $status"
[ "$status" = 0 ] || exit 1
[ "$tools" -gt 0 ] || { echo "no tools listed"; exit 1; }
if grep -qE '^(Warning|Error)' "$out.err"; then echo "MCP Inspector --strict reported problems"; exit 1; fi
