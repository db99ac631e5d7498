#!/usr/bin/env bash
# The image's recipe without a Docker engine: the Dockerfile's stages repeated in a temporary
# directory (.ci/dockerfile-replay.mjs) on the Node major it names — npm ci, build, npm prune
# --omit=dev, then the runtime stage's files only. That runtime directory (production
# dependencies and dist/, nothing else) then migrates a fresh database, bootstraps a workspace,
# starts the image's CMD with NODE_ENV=production and answers /health/ready and an API call.
. .ci/lib.sh
set -e
bin=$(ci_lts_bin)
export PATH="$bin:$PATH"
echo "node $(node -v), npm $(npm -v)"
root="$CI_TMP/docker"
ctx="$root/context"
rm -rf "$root" && mkdir -p "$ctx"
# The build context: the committed files (what a clean checkout sends to docker build).
git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$ctx"
node .ci/dockerfile-replay.mjs Dockerfile "$ctx" "$root" >"$root/replay.sh"
bash "$root/replay.sh" 2>&1 | grep -v -e 'Unknown user config' -e EBADENGINE
# shellcheck disable=SC1091
. "$root/runtime.sh"
cd "$RUNTIME_DIR"
echo "runtime stage: $(ls | tr '\n' ' ')"
for dev in jest eslint @nestjs/cli @swc/core; do
  [ ! -e "node_modules/$dev" ] || { echo "dev dependency $dev is in the runtime image (npm prune --omit=dev did not run?)"; exit 1; }
done
while IFS='=' read -r name value; do export "${name#RUNTIME_ENV_}=${value//\'/}"; done < <(grep '^RUNTIME_ENV_' "$root/runtime.sh")
db=$(ci_db_url "sps_ci_image_$$")
pid=""
trap 'set +e; kill $pid 2>/dev/null; wait $pid 2>/dev/null; ci_drop_db "$db"' EXIT
export DATABASE_URL=$db PORT=$(ci_free_port) REDIS_PREFIX="sps-ci-image-$$" LOG_LEVEL=warn
TOKEN_ENCRYPTION_KEY=$(node -e 'console.log(require("crypto").randomBytes(32).toString("base64"))')
export TOKEN_ENCRYPTION_KEY
echo "NODE_ENV=$NODE_ENV"
node dist/src/database/migrate.js
node dist/src/cli/admin.js bootstrap --workspace "Image check" --email ci@example.com --json >"$root/key.json"
"${RUNTIME_CMD[@]}" &
pid=$!
ci_wait_http "http://127.0.0.1:$PORT/health/ready" 60 "$pid"
node -e '
  const { apiKey } = require(process.argv[1]);
  fetch(`http://127.0.0.1:${process.env.PORT}/v1/profile`, { headers: { authorization: `Bearer ${apiKey}` } })
    .then(async (r) => { const b = await r.text(); console.log("GET /v1/profile", r.status); if (r.status !== 200) { console.log(b); process.exit(1); } })
    .catch((e) => { console.error(e); process.exit(1); });
' "$root/key.json"
echo "the runtime stage migrates, bootstraps and answers /health/ready"
