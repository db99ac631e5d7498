#!/usr/bin/env node
// Completes package-lock.json with the other platforms' optional binaries (@swc/core-darwin-arm64,
// @unrs/resolver-binding-*, …). npm 11's `npm ci` insists that every optional dependency has an
// entry in the lock, but a registry that lacks those exact versions (the mirror this project is
// built behind) makes `npm install` leave them out. Each entry is written as npm itself writes a
// foreign-platform binary: version, optional, and the os/cpu/libc that make every install skip it
// on other machines. The os/cpu/libc come from the registry's nearest published version of the
// package, or from the package name when the registry has none.
// Usage: node scripts/lock-platforms.mjs [--check]
import { readFileSync, writeFileSync } from 'node:fs';

const LOCK = new URL('../package-lock.json', import.meta.url);
const check = process.argv.includes('--check');
const lock = JSON.parse(readFileSync(LOCK, 'utf8'));
const pkgs = lock.packages;

function findInstalled(fromPath, name) {
  // Node's resolution: the nearest node_modules/<name> walking up from the dependant.
  let base = fromPath;
  for (;;) {
    const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
    if (pkgs[candidate]) return candidate;
    if (!base) return null;
    const i = base.lastIndexOf('/node_modules/');
    base = i < 0 ? '' : base.slice(0, i);
  }
}

function fromName(name) {
  const os = [
    'darwin',
    'linux',
    'win32',
    'freebsd',
    'android',
    'openharmony',
    'sunos',
    'aix',
    'netbsd',
    'openbsd',
  ].find((o) => name.includes(o));
  const cpu = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'riscv64', 'loong64', 'mips64el', 'wasm32'].find((c) =>
    new RegExp(`[-_]${c}([-_]|$)`).test(name),
  );
  const libc = /musl/.test(name) ? ['musl'] : /gnu/.test(name) && os === 'linux' ? ['glibc'] : undefined;
  return { os: os && [os], cpu: cpu && [cpu], libc };
}

async function platformOf(name, version) {
  try {
    const res = await fetch(`https://registry.npmjs.org/${name.replace('/', '%2f')}`, {
      signal: AbortSignal.timeout(10000),
    });
    if (res.ok) {
      const doc = await res.json();
      const v = doc.versions[version] ?? Object.values(doc.versions).at(-1);
      if (v && (v.os || v.cpu)) return { os: v.os, cpu: v.cpu, libc: v.libc };
    }
  } catch {
    // offline: fall back to the name
  }
  return fromName(name);
}

const missing = [];
for (const [path, meta] of Object.entries(pkgs)) {
  for (const [name, version] of Object.entries(meta.optionalDependencies ?? {})) {
    if (!findInstalled(path, name)) missing.push({ parent: path, meta, name, version });
  }
}
if (check) {
  for (const m of missing)
    console.error(`missing from lock: ${m.name}@${m.version} (optional dependency of ${m.parent || 'the project'})`);
  process.exit(missing.length ? 1 : 0);
}
for (const m of missing) {
  const at = pkgs[`node_modules/${m.name}`] ? `${m.parent}/node_modules/${m.name}` : `node_modules/${m.name}`;
  if (pkgs[at]) continue;
  const entry = { version: m.version };
  if (m.meta.dev) entry.dev = true;
  if (m.meta.devOptional) entry.devOptional = true;
  entry.optional = true;
  const p = await platformOf(m.name, m.version);
  for (const k of ['os', 'cpu', 'libc']) if (p[k]) entry[k] = p[k];
  pkgs[at] = entry;
}
lock.packages = Object.fromEntries(
  Object.entries(pkgs).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`added ${missing.length} platform entries`);
