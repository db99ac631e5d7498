import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ERROR_CATALOGUE, ERROR_CODES } from '@/common/errors/error-catalogue';
import { ROOT } from '@test/support/e2e-helpers';
import { discoverRoutes } from '@test/support/routes';
import { createTestApp, TestApp } from '@test/support/test-app';

type Operation = {
  operationId?: string;
  summary?: string;
  security?: Record<string, string[]>[];
  parameters?: { $ref?: string; name?: string; in?: string }[];
  responses: Record<
    string,
    {
      description: string;
      headers?: Record<string, unknown>;
      content?: {
        'application/json'?: {
          schema?: { $ref?: string };
          examples?: Record<string, { value: { error: { code: string } } }>;
        };
      };
    }
  >;
  'x-required-permission'?: string;
};
type Doc = {
  openapi: string;
  info: { description: string };
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<
      string,
      { properties?: Record<string, { enum?: string[]; $ref?: string; allOf?: { $ref: string }[] }> }
    >;
  };
};

const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z_]+)/g, '{$1}');

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
}

/** Runs the real linter (`redocly lint`, JSON report) over a file; exit code and problems. */
function lint(file: string): Promise<{ code: number; report?: LintReport; output: string }> {
  return new Promise((resolve) => {
    execFile(
      join(ROOT, 'node_modules', '.bin', 'redocly'),
      ['lint', '--config', join(ROOT, 'redocly.yaml'), '--format', 'json', file],
      {
        cwd: ROOT,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
        timeout: 120000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (err, stdout, stderr) => {
        let report: LintReport | undefined;
        try {
          report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as LintReport;
        } catch {
          // no JSON: the output explains
        }
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, report, output: `${stdout}\n${stderr}` });
      },
    );
  });
}

describe('OpenAPI document and Swagger UI', () => {
  let t: TestApp;
  let doc: Doc;

  beforeAll(async () => {
    t = await createTestApp();
    doc = (await t.http().get('/openapi.json').expect(200)).body as Doc;
  });
  afterAll(async () => t.close());

  it('should serve Swagger UI at /docs and the document as JSON and YAML', async () => {
    const ui = await t.http().get('/docs').redirects(2).expect(200);
    expect(ui.text).toMatch(/swagger-ui/i);
    expect(doc.openapi).toMatch(/^3\./);
    const yaml = await t.http().get('/openapi.yaml').expect(200);
    expect(yaml.text).toMatch(/^openapi: 3\./m);
  });

  it('should pass `redocly lint` (recommended ruleset, see redocly.yaml)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sps-openapi-'));
    try {
      const file = join(dir, 'openapi.json');
      writeFileSync(file, JSON.stringify(doc, null, 2));
      const { code, report, output } = await lint(file);
      const problems = (report?.problems ?? []).map(
        (p) =>
          `${p.severity} ${p.ruleId}: ${p.message} at ${decodeURIComponent(p.location[0]?.pointer ?? '?').replace(/~1/g, '/')}`,
      );
      if (code !== 0 || !report)
        throw new Error(`redocly lint failed (exit ${code}):\n${report ? problems.join('\n') : output}`);
      expect(report.totals.errors).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120000);

  it('should document every route of the app with a summary (hosted pages and the sandbox aside), every /v1 route included', () => {
    const routes = discoverRoutes(t);
    expect(
      routes.filter((r) => r.path.startsWith('/v1') && r.excludedFromDocs).map((r) => `${r.method} ${r.path}`),
    ).toEqual([]);
    const missing: string[] = [];
    for (const r of routes) {
      if (r.excludedFromDocs || r.method === 'ALL') continue;
      const op = doc.paths[toOpenApiPath(r.path)]?.[r.method.toLowerCase()];
      if (!op) missing.push(`${r.method} ${r.path}`);
      else if (!op.summary)
        missing.push(`${r.method} ${r.path} (no summary: add a JSDoc comment to ${r.controller}.${r.handler})`);
    }
    expect(missing).toEqual([]);
  });

  it('should give every /v1 operation bearer security, its permission, a success response and the common errors', () => {
    const problems: string[] = [];
    const permissions = new Map(
      discoverRoutes(t).map((r) => [`${r.method.toLowerCase()} ${toOpenApiPath(r.path)}`, r.permission]),
    );
    for (const [path, item] of Object.entries(doc.paths)) {
      if (!path.startsWith('/v1')) continue;
      for (const [method, op] of Object.entries(item)) {
        const name = `${method.toUpperCase()} ${path}`;
        if (!op.security?.some((s) => 'bearer' in s)) problems.push(`${name}: no bearer security`);
        if (op['x-required-permission'] !== permissions.get(`${method} ${path}`))
          problems.push(`${name}: x-required-permission ${op['x-required-permission']}`);
        if (!Object.keys(op.responses).some((s) => /^2\d\d$/.test(s))) problems.push(`${name}: no 2xx response`);
        for (const status of ['401', '403', '429', '500'])
          if (!op.responses[status]) problems.push(`${name}: no ${status} response`);
        const two = Object.entries(op.responses).find(([s]) => /^2\d\d$/.test(s))?.[1];
        for (const h of [
          'X-Request-Id',
          'RateLimit-Limit',
          'RateLimit-Remaining',
          'RateLimit-Reset',
          'RateLimit-Policy',
        ])
          if (!two?.headers?.[h]) problems.push(`${name}: 2xx lacks header ${h}`);
        if (!op.responses['429']?.headers?.['Retry-After']) problems.push(`${name}: 429 lacks Retry-After`);
        if (
          ['post', 'put', 'patch', 'delete'].includes(method) &&
          !op.parameters?.some((p) => p.$ref === '#/components/parameters/IdempotencyKey')
        )
          problems.push(`${name}: no Idempotency-Key parameter`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('should document error responses from the catalogue: the envelope schema, and each example under its own status', () => {
    const envelope = doc.components.schemas.ErrorEnvelope;
    const errorRef = envelope.properties!.error;
    expect(errorRef.$ref ?? errorRef.allOf?.[0]?.$ref).toBe('#/components/schemas/ErrorBody');
    expect([...(doc.components.schemas.ErrorBody.properties!.code.enum ?? [])].sort()).toEqual([...ERROR_CODES].sort());
    const wrong: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        for (const [status, response] of Object.entries(op.responses)) {
          const json = response.content?.['application/json'];
          if (!json?.examples || Number(status) < 400) continue;
          if (json.schema?.$ref !== '#/components/schemas/ErrorEnvelope')
            wrong.push(`${method} ${path} ${status}: not the envelope`);
          for (const ex of Object.values(json.examples)) {
            const code = ex.value.error.code as keyof typeof ERROR_CATALOGUE;
            if (!ERROR_CATALOGUE[code] || String(ERROR_CATALOGUE[code].status) !== status)
              wrong.push(`${method} ${path}: ${code} under ${status}`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
    // The description lists every code (it is generated from the same catalogue as /errors).
    for (const code of ERROR_CODES) expect(doc.info.description).toContain(`\`${code}\``);
  });

  it('should mark public operations as such (security: [])', () => {
    expect(doc.paths['/health'].get.security).toEqual([]);
    expect(doc.paths['/health/ready'].get.security).toEqual([]);
    expect(doc.paths['/health/ready'].get.responses['503']).toBeDefined();
  });
});

describe('health', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it('should answer liveness and readiness without a key', async () => {
    await t.http().get('/health').expect(200, { status: 'ok' });
    await t
      .http()
      .get('/health/ready')
      .expect(200, { status: 'ok', checks: { postgres: 'ok', redis: 'ok' } });
  });
});
