#!/usr/bin/env bash
# The README's first command, as a newcomer runs it: `npm run dev` in a fresh clone (no
# node_modules, so it runs npm ci), against a throwaway database. It must print no npm error,
# print the Swagger URL and a key, and that key must work with a development rate ceiling (not the
# production default of 16 a minute).
. .ci/lib.sh
set -e
clone="$CI_TMP/dev-clone"
rm -rf "$clone"
git clone -q "$CI_ROOT" "$clone"
db=$(ci_db_url "sps_ci_dev_$$")
port=$(ci_free_port)
log="$CI_TMP/dev.log"
pid=""
trap 'set +e; [ -n "$pid" ] && kill -TERM -- -"$pid" 2>/dev/null; wait "$pid" 2>/dev/null; ci_drop_db "$db"' EXIT
(cd "$clone" && DATABASE_URL=$db PORT=$port REDIS_PREFIX="sps-ci-dev-$$" exec setsid npm run dev) >"$log" 2>&1 &
pid=$!
for _ in $(seq 1 300); do
  grep -q 'Ctrl-C stops the service' "$log" && break
  kill -0 "$pid" 2>/dev/null || { cat "$log"; echo "npm run dev exited"; exit 1; }
  sleep 1
done
cat "$log"
grep -q 'Ctrl-C stops the service' "$log" || { echo "npm run dev did not come up within 300s"; exit 1; }
if grep -E '^npm (error|ERR!)' "$log"; then echo "npm run dev printed npm errors"; exit 1; fi
key=$(sed -nE 's/^ *API key +(\S+).*/\1/p' "$log")
[ -n "$key" ] || { echo "no API key printed"; exit 1; }
node -e '
  fetch(`http://127.0.0.1:${process.argv[2]}/v1/profile`, { headers: { authorization: `Bearer ${process.argv[1]}` } }).then(async (r) => {
    const limit = Number(r.headers.get("ratelimit-limit"));
    console.log("GET /v1/profile", r.status, "RateLimit-Limit", limit);
    if (r.status !== 200) process.exit(1);
    if (!(limit > 16)) { console.log("the development key has the production default of 16 requests a minute"); process.exit(1); }
  }, (e) => { console.error(e); process.exit(1); });
' "$key" "$port"
