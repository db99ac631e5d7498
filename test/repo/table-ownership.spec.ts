import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import * as ts from 'typescript';

/**
 * Each module owns its tables (STYLE.md §10): only the module whose folder holds an entity reads or
 * writes its table; another module calls the owner's exported service. Tables of src/common
 * (events, request logs, idempotency keys) are shared machinery.
 */
const ROOT = join(__dirname, '..', '..');
const SRC = join(ROOT, 'src');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** `src/modules/<m>` or `src/common/<part>`: the folder that owns a file. */
function ownerOf(file: string): string {
  return relative(ROOT, file).split(sep).slice(0, 3).join('/');
}

interface Entity {
  className: string;
  table: string;
  owner: string;
}

function entities(): Entity[] {
  return filesUnder(SRC)
    .filter((f) => f.endsWith('.entity.ts'))
    .flatMap((f) => {
      const sf = ts.createSourceFile(f, readFileSync(f, 'utf8'), ts.ScriptTarget.Latest, true);
      return sf.statements.filter(ts.isClassDeclaration).flatMap((c) => {
        const table = (ts.getDecorators(c) ?? [])
          .map((d) => d.expression)
          .filter(ts.isCallExpression)
          .filter((call) => call.expression.getText(sf) === 'Entity')
          .map((call) => /name: '(\w+)'/.exec(call.arguments[0]?.getText(sf) ?? '')?.[1])[0];
        return table && c.name ? [{ className: c.name.text, table, owner: ownerOf(f) }] : [];
      });
    });
}

/** Every use of another module's table (raw SQL) or entity class (as a value: repositories, managers, forFeature). */
function trespasses(file: string, all: Entity[], text = readFileSync(file, 'utf8')): string[] {
  const owner = ownerOf(file);
  const foreign = all.filter((e) => e.owner !== owner && e.owner.startsWith('src/modules/'));
  const found = new Set<string>();
  const tables = new RegExp(`\\b(?:FROM|JOIN|INTO|UPDATE)\\s+"?(${foreign.map((e) => e.table).join('|')})\\b`, 'gi');
  for (const m of text.matchAll(tables)) found.add(m[1]);
  const classes = new Map(foreign.map((e) => [e.className, e.table]));
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) return;
    if (ts.isIdentifier(node) && classes.has(node.text) && !isTypePosition(node)) found.add(classes.get(node.text)!);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return [...found].sort();
}

function isTypePosition(node: ts.Node): boolean {
  for (let n: ts.Node | undefined = node.parent; n; n = n.parent) {
    if (ts.isTypeNode(n) || ts.isTypeAliasDeclaration(n) || ts.isInterfaceDeclaration(n)) return true;
    if (ts.isExpressionStatement(n) || ts.isBlock(n) || ts.isSourceFile(n)) return false;
  }
  return false;
}

describe('each module owns its tables', () => {
  const all = entities();

  it('should find the entities and their owners', () => {
    expect(all.length).toBeGreaterThanOrEqual(23);
    expect(all).toContainEqual({ className: 'PostTargetEntity', table: 'post_targets', owner: 'src/modules/posts' });
    expect(all).toContainEqual({ className: 'ProfileEntity', table: 'profiles', owner: 'src/modules/profiles' });
  });

  it('should have no module read or register another module’s tables or entities', () => {
    const offenders = filesUnder(join(SRC, 'modules'))
      .filter((f) => !f.endsWith('.spec.ts'))
      .map((f) => ({ file: relative(ROOT, f).split(sep).join('/'), tables: trespasses(f, all) }))
      .filter((o) => o.tables.length > 0);
    expect(offenders).toEqual([]);
  });

  it('should catch a query on another module’s table and a repository of another module’s entity', () => {
    const probe = join(SRC, 'modules', 'plans', 'probe.ts');
    const text = [
      "import { ProfileEntity } from '../profiles/profile.entity';",
      "const sql = 'SELECT count(*) FROM api_keys WHERE workspace_id = $1';",
      'const repo = ds.getRepository(ProfileEntity);',
      'type Row = Pick<ProfileEntity, "id">;',
    ].join('\n');
    expect(trespasses(probe, all, text)).toEqual(['api_keys', 'profiles']);
  });
});
