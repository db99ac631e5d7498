import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { createTenant, createTestApp, Tenant, TestApp } from '@test/support/test-app';
import { insertAccount } from '@test/support/publishing';

/**
 * Hostile bodies, queries and headers for every operation of the OpenAPI
 * document. Whatever arrives: no 5xx, the error envelope on every 4xx, and a 4xx writes nothing.
 */

interface Operation {
  method: string;
  path: string;
  pathParams: string[];
  queryParams: string[];
  bodyProps: string[];
  hasBody: boolean;
}

interface OpenApiDoc {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: { name: string; in: string }[];
        requestBody?: { content?: Record<string, { schema?: { $ref?: string; properties?: object } }> };
      }
    >
  >;
  components?: { schemas?: Record<string, { properties?: Record<string, unknown> }> };
}

function operationsOf(doc: OpenApiDoc): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!path.startsWith('/v1')) continue;
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const params = op.parameters ?? [];
      const schema = op.requestBody?.content?.['application/json']?.schema;
      const ref = schema?.$ref?.split('/').pop();
      const props = ref ? doc.components?.schemas?.[ref]?.properties : schema?.properties;
      ops.push({
        method: method.toUpperCase(),
        path,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: params.filter((p) => p.in === 'query').map((p) => p.name),
        bodyProps: Object.keys(props ?? {}),
        hasBody: !!op.requestBody,
      });
    }
  }
  return ops;
}

/** Strings that have broken services before: NUL, dates Postgres cannot hold, numbers past int8, injection. */
const nasty = fc.constantFrom(
  '\u0000',
  'a\u0000b',
  '0000-01-01',
  '0000-01-01T00:00:00Z',
  '+275760-09-13T00:00:00.000Z',
  '2026-02-30',
  '9223372036854775808',
  '99999999999999999999999',
  '-1',
  '0',
  '1e309',
  'NaN',
  '',
  ' ',
  '../../etc/passwd',
  "'; DROP TABLE posts; --",
  '<script>alert(1)</script>',
  '\uD800',
  '\uFFFF',
  'null',
  '*',
  'https://127.0.0.1:9/x',
  'http://[::1]/',
);
const hostileString = fc.oneof(nasty, fc.string({ maxLength: 40 }), fc.string({ minLength: 1000, maxLength: 3000 }));
const { value: hostileValue } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileString,
    fc.integer(),
    fc.constantFrom(Number.MAX_SAFE_INTEGER, 2 ** 63, -(2 ** 63), 1e308, -0, 0.5),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(hostileString, tie('value'), { maxKeys: 3 }),
  ),
}));

/** A lone surrogate cannot be encoded as UTF-8: send invalid percent-encoded bytes instead. */
function encodePathValue(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80';
  }
}

describe('hostile input on every operation (property-based)', () => {
  let t: TestApp;
  let tenant: Tenant;
  let ops: Operation[];
  let ids: string[];
  let tables: string[];

  beforeAll(async () => {
    t = await createTestApp({ env: { PROCESS_ROLE: 'api' } });
    tenant = await createTenant(t, { plan: 'enterprise' });
    const account = await insertAccount(t, tenant, 'facebook');
    const post = await t
      .http()
      .post('/v1/posts')
      .set(tenant.auth)
      .send({ content: 'Existing', accountIds: [account.id] })
      .expect(201);
    const hook = await t
      .http()
      .post('/v1/webhooks')
      .set(tenant.auth)
      .send({ url: 'http://127.0.0.1:9/hooks', events: ['*'] })
      .expect(201);
    ids = [tenant.profileId, tenant.keyId, account.id, post.body.id as string, hook.body.subscription.id as string];
    const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as OpenApiDoc;
    ops = operationsOf(doc);
    tables = (
      await t.ds.query<{ tablename: string }[]>(
        `SELECT tablename FROM pg_tables WHERE schemaname = 'public'
           AND tablename NOT IN ('request_logs', 'idempotency_keys', 'migrations', 'typeorm_metadata')`,
      )
    ).map((r) => r.tablename);
  });
  afterAll(async () => t.close());

  /** Every stored row (columns that background work touches left out), as one digest. */
  async function fingerprint(): Promise<string> {
    const parts = tables.map(
      (name) =>
        `(SELECT md5(coalesce(string_agg(x, ',' ORDER BY x), '')) FROM (SELECT (to_jsonb(t) - 'last_used_at' - 'dispatched_at' - 'updated_at')::text AS x FROM "${name}" t) s)`,
    );
    const [row] = await t.ds.query<{ d: string }[]>(`SELECT md5(concat_ws('|', ${parts.join(', ')})) AS d`);
    return row.d;
  }

  const requestFor = (op: Operation) =>
    fc.record({
      pathValues: fc.array(fc.oneof(fc.constantFrom(...ids), fc.constant(randomUUID()), hostileString), {
        minLength: op.pathParams.length,
        maxLength: op.pathParams.length,
      }),
      query: fc.dictionary(
        fc.oneof(op.queryParams.length ? fc.constantFrom(...op.queryParams) : fc.constant('page'), hostileString),
        fc.oneof(hostileString, fc.constantFrom(...ids)),
        { maxKeys: 4 },
      ),
      body: fc.oneof(
        // Shaped like the operation's body, every field hostile.
        fc.dictionary(
          op.bodyProps.length ? fc.oneof(fc.constantFrom(...op.bodyProps), hostileString) : hostileString,
          hostileValue,
          { maxKeys: 6 },
        ),
        hostileValue,
        fc.string({ maxLength: 60 }).map((s) => ({ raw: `{"broken": ${s}` })),
        fc.uint8Array({ maxLength: 64 }).map((b) => ({ raw: Buffer.from(b) })),
      ),
      auth: fc.constantFrom('valid', 'valid', 'valid', 'valid', 'none', 'garbage', 'basic'),
      contentType: fc.constantFrom(
        'application/json',
        'application/json',
        'application/json; charset=utf-16',
        'text/plain',
        'application/x-www-form-urlencoded',
        'application/vnd.api+json',
      ),
      contentEncoding: fc.constantFrom(undefined, undefined, undefined, 'gzip', 'deflate', 'br', 'identity', 'zip'),
      requestId: fc.option(hostileString.filter((s) => /^[\x20-\x7e]*$/.test(s))),
    });

  it('answers every operation without a 5xx, with the envelope on each 4xx, and writes nothing on a 4xx', async () => {
    expect(ops.length).toBeGreaterThan(40);
    for (const op of ops) {
      await fc.assert(
        fc.asyncProperty(requestFor(op), async (r) => {
          let path = op.path;
          op.pathParams.forEach((name, i) => {
            path = path.replace(`{${name}}`, encodePathValue(r.pathValues[i]));
          });
          const query = new URLSearchParams(Object.entries(r.query)).toString();
          const headers: Record<string, string> = { 'Content-Type': r.contentType };
          if (r.auth === 'valid') Object.assign(headers, tenant.auth);
          if (r.auth === 'garbage') headers.Authorization = 'Bearer svc_live_x\u00ff';
          if (r.auth === 'basic') headers.Authorization = 'Basic dXNlcjpwYXNz';
          if (r.contentEncoding) headers['Content-Encoding'] = r.contentEncoding;
          if (r.requestId) headers['X-Request-Id'] = r.requestId;
          const raw = r.body && typeof r.body === 'object' && 'raw' in r.body ? r.body.raw : null;
          const body = op.hasBody || op.method !== 'GET' ? (raw ?? JSON.stringify(r.body) ?? 'null') : undefined;
          const before = await fingerprint();
          let res: Response;
          try {
            res = await fetch(`${t.url}${path}${query ? `?${query}` : ''}`, {
              method: op.method,
              headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v.replace(/[^\x20-\xff]/g, '')])),
              body: body as string | Buffer | undefined,
            });
          } catch (err) {
            throw new Error(`${op.method} ${path}: no answer (${String(err)})`);
          }
          const text = await res.text();
          const where = `${op.method} ${path}?${query} → ${res.status} ${text.slice(0, 300)}`;
          if (res.status >= 500) throw new Error(`5xx: ${where}`);
          if (res.status >= 400) {
            let parsed: { message?: unknown; error?: { code?: unknown; message?: unknown; requestId?: unknown } };
            try {
              parsed = JSON.parse(text) as typeof parsed;
            } catch {
              throw new Error(`4xx without a JSON envelope: ${where}`);
            }
            const e = parsed.error;
            if (
              typeof e?.code !== 'string' ||
              typeof e.message !== 'string' ||
              parsed.message !== e.message ||
              e.requestId !== res.headers.get('x-request-id')
            )
              throw new Error(`4xx without the error envelope: ${where}`);
            if ((await fingerprint()) !== before) throw new Error(`a 4xx wrote something: ${where}`);
          }
        }),
        {
          numRuns: Number(process.env.FC_RUNS ?? 12),
          seed: Number(process.env.FC_SEED ?? Date.now() % 2 ** 31),
          endOnFailure: true,
        },
      );
    }
  }, 110_000);
});
