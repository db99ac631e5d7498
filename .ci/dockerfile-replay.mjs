// Turns the Dockerfile into a bash script that repeats its stages in a temporary directory, so
// its recipe is proven without a Docker engine (.ci/steps/40-dockerfile-recipe.sh).
//   node .ci/dockerfile-replay.mjs <Dockerfile> <context dir> <root dir>
// Each stage gets <root>/<stage>; its WORKDIR (/app) maps to that directory. COPY copies from
// the build context (or, with --from, another stage's directory) and fails on a missing source,
// RUN runs in the stage directory, ENV exports (with /app paths mapped). The script ends by
// printing, for the last stage, the exports and the CMD as `RUNTIME_ENV` / `RUNTIME_CMD` lines
// in a file <root>/runtime.sh, which the CI step sources to start the image's command.
import { readFileSync } from 'node:fs';

const [file, context, root] = process.argv.slice(2);
const q = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`;
const lines = readFileSync(file, 'utf8')
  .replace(/\\\r?\n/g, ' ')
  .split(/\r?\n/)
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));

const out = ['set -euo pipefail'];
// Ownership belongs to the container's user (USER node), which this machine need not have.
const noChown = 'chown() { :; }; ';
let stage = null;
let workdir = '/';
const env = {};
let cmd = null;
// The image's application directory: the first WORKDIR. Paths under it map to the stage directory.
const appDir = lines.map((l) => /^WORKDIR\s+(\S+)/i.exec(l)?.[1]).find(Boolean) ?? '/app';
const appRe = new RegExp(`(^|[\\s='"])${appDir.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(?=/|$|[\\s'"])`, 'g');
const mapText = (s) => s.replace(appRe, (_, pre) => `${pre}${root}/${stage}`);

for (const line of lines) {
  const [, instr, rest] = /^(\S+)\s+(.*)$/.exec(line);
  switch (instr.toUpperCase()) {
    case 'FROM': {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(rest);
      stage = m[2] ?? `stage${out.length}`;
      workdir = '/';
      for (const k of Object.keys(env)) delete env[k];
      out.push(`echo ${q(`--- stage ${stage} (${m[1]})`)}`, `mkdir -p ${q(`${root}/${stage}`)}`);
      break;
    }
    case 'WORKDIR':
      workdir = rest;
      out.push(`mkdir -p ${q(`${root}/${stage}`)}`);
      break;
    case 'ENV': {
      for (const m of rest.matchAll(/(\w+)=("[^"]*"|\S+)/g)) env[m[1]] = mapText(m[2].replace(/^"|"$/g, ''));
      break;
    }
    case 'COPY': {
      const words = rest.split(/\s+/);
      let from = context;
      const args = [];
      for (const w of words) {
        if (w.startsWith('--from=')) from = `${root}/${w.slice(7)}`;
        else if (!w.startsWith('--')) args.push(w);
      }
      const dest = args.pop();
      // A stage's absolute paths live under its own directory (/app → <root>/<stage>).
      const src = (s) => (from === context ? `${context}/${s}` : mapText(s).replace(`${root}/${stage}`, from));
      const target = dest.startsWith('/') ? mapText(dest) : `${root}/${stage}/${dest.replace(/^\.\//, '')}`;
      out.push(`echo ${q(`COPY ${rest}`)}`);
      if (args.length > 1 || dest.endsWith('/')) {
        out.push(`mkdir -p ${q(target)}`);
        for (const a of args) out.push(`cp -a ${q(src(a))} ${q(target)}`);
      } else {
        out.push(`test -e ${q(src(args[0]))} || { echo ${q(`COPY: ${args[0]} not found`)} >&2; exit 1; }`);
        out.push(`mkdir -p "$(dirname ${q(target)})"`, `rm -rf ${q(target)}`, `cp -a ${q(src(args[0]))} ${q(target)}`);
      }
      break;
    }
    case 'RUN': {
      const exports = Object.entries(env)
        .map(([k, v]) => `${k}=${q(v)}`)
        .join(' ');
      out.push(
        `echo ${q(`RUN ${rest}`)}`,
        `(cd ${q(`${root}/${stage}`)} && env ${exports} bash -c ${q(`${noChown}${mapText(rest)}`)})`,
      );
      break;
    }
    case 'CMD':
      cmd = JSON.parse(rest);
      break;
    default: // USER, EXPOSE, HEALTHCHECK, LABEL, ARG: nothing to repeat outside a container
      break;
  }
}
const runtime = [
  `RUNTIME_DIR=${q(`${root}/${stage}`)}`,
  ...Object.entries(env).map(([k, v]) => `RUNTIME_ENV_${k}=${q(v)}`),
  `RUNTIME_CMD=(${cmd.map(q).join(' ')})`,
];
out.push(`cat > ${q(`${root}/runtime.sh`)} <<'RUNTIME'`, ...runtime, 'RUNTIME');
console.log(out.join('\n'));
