#!/usr/bin/env bash
# @sps/client is a package another project can depend on: npm pack in client/ (its build leaves
# an executable dist/cli.js), install the
# tarball into an empty project, run `npx sps --help` there and compile a typed program against
# the installed package (with a deliberate type error that must be caught).
. .ci/lib.sh
set -e
work="$CI_TMP/client"
rm -rf "$work" && mkdir -p "$work/consumer"
(cd client && npm ci --no-audit --no-fund && npm pack --pack-destination "$work") 2>&1 | grep -v -e 'Unknown user config' -e '^npm notice'
# The build itself leaves a runnable bin (npm pack ran prepack → build).
test -x client/dist/cli.js || { echo "client/dist/cli.js is not executable after npm run build"; exit 1; }
client/dist/cli.js --version
tgz=$(ls "$work"/*.tgz)
echo "packed $(basename "$tgz")"
cd "$work/consumer"
npm init -y >/dev/null
npm install --no-audit --no-fund "$tgz" 2>&1 | grep -v 'Unknown user config'
npx --no-install sps --help | tee help.txt
grep -q 'Usage: sps' help.txt
cat > program.ts <<'TS'
import { SpsClient, SpsApiError, type components } from '@sps/client';

type Post = components['schemas']['PostDto'];

export async function firstPost(apiKey: string): Promise<Post['id'] | undefined> {
  const sps = new SpsClient({ apiKey, baseUrl: 'http://localhost:3000' });
  try {
    const page = await sps.posts.list({ limit: 1 });
    return page.posts[0]?.id;
  } catch (e) {
    if (e instanceof SpsApiError) console.error(e.code);
    throw e;
  }
}
TS
cat > wrong.ts <<'TS'
import { SpsClient } from '@sps/client';
const sps = new SpsClient({ apiKey: 'k' });
void sps.posts.create({ contnet: 'typo' });
TS
cat > tsconfig.json <<JSON
{ "compilerOptions": { "strict": true, "module": "nodenext", "moduleResolution": "nodenext", "target": "ES2022",
  "noEmit": true, "typeRoots": ["$CI_ROOT/node_modules/@types"], "types": ["node"] }, "files": ["program.ts"] }
JSON
tsc="$CI_ROOT/node_modules/.bin/tsc"
"$tsc" -p tsconfig.json
echo "program.ts compiles against the installed @sps/client"
echo '{ "extends": "./tsconfig.json", "files": ["wrong.ts"] }' >tsconfig.wrong.json
if "$tsc" -p tsconfig.wrong.json >wrong.log 2>&1 || ! grep -q contnet wrong.log; then
  cat wrong.log
  echo "a misspelt field in posts.create compiled: the installed package carries no types"
  exit 1
fi
echo "a misspelt field is a type error"
