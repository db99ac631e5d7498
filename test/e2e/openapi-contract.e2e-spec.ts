import { randomUUID } from 'node:crypto';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { componentsAsJsonSchema, oasToJsonSchema, strictOpenApiProblems } from '@/bootstrap/openapi-strict';
import { loadContract } from '@test/support/contract';
import { createTenant, createTestApp, TestApp } from '@test/support/test-app';

type Json = Record<string, unknown>;
type Operation = {
  operationId: string;
  requestBody?: { content: Record<string, { schema: Json; example?: unknown }> };
};

describe('OpenAPI document read strictly, and the answers against it', () => {
  let t: TestApp;
  let doc: { paths: Record<string, Record<string, Operation>> } & Json;
  const bodies: { method: string; path: string; op: Operation }[] = [];

  beforeAll(async () => {
    t = await createTestApp();
    doc = (await t.http().get('/openapi.json').expect(200)).body;
    for (const [path, item] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(item)) if (op.requestBody) bodies.push({ method, path, op });
  });
  afterAll(async () => t.close());

  it('should have nothing a strict OpenAPI 3.0 reader gets wrong (nullable, $ref siblings, response schemas, docsUrl)', () => {
    expect(strictOpenApiProblems(doc, { docsBaseUrl: t.config.docsBaseUrl })).toEqual([]);
  });

  it('should give every request body an example its own schema accepts, without profileId', () => {
    expect(bodies.length).toBeGreaterThan(10);
    const ajv = new Ajv({ strict: false });
    addFormats(ajv);
    ajv.addSchema(componentsAsJsonSchema(doc, 'openapi'));
    for (const { method, path, op } of bodies) {
      const media = op.requestBody!.content['application/json'];
      const at = `${method.toUpperCase()} ${path}`;
      expect({ at, example: media.example }).toEqual({ at, example: expect.any(Object) });
      expect({ at, profileId: (media.example as Json).profileId }).toEqual({ at, profileId: undefined });
      const validate = ajv.compile(oasToJsonSchema(media.schema, 'openapi') as object);
      expect({ at, valid: validate(media.example), errors: validate.errors ?? null }).toEqual({
        at,
        valid: true,
        errors: null,
      });
    }
  });

  it('should accept each request example as is with a fresh key: never 400 invalid_request, never a 5xx', async () => {
    for (const { method, path, op } of bodies) {
      const tenant = await createTenant(t);
      const url = path.replace(/\{[^}]+\}/g, randomUUID());
      const res = await t
        .http()
        [method as 'post'](url)
        .set(tenant.auth)
        .send(op.requestBody!.content['application/json'].example as object);
      const at = `${method.toUpperCase()} ${path}`;
      expect({ at, status: res.status < 500 ? 'not 5xx' : res.status, code: res.body?.error?.code ?? null }).toEqual({
        at,
        status: 'not 5xx',
        code: expect.not.stringMatching(/^invalid_request$/) as unknown,
      });
    }
  });

  it('should refuse answers the document does not describe (the check every e2e response goes through)', async () => {
    const contract = await loadContract(t.url);
    const res = { status: 200, type: 'application/json', body: { profile: { id: 1 } } } as never;
    expect(() => contract.check('get', '/v1/profile', res)).toThrow(/contract: GET \/v1\/profile → 200: body/);
    const teapot = { status: 418, type: 'application/json', body: {} } as never;
    expect(() => contract.check('get', '/v1/profile', teapot)).toThrow(/not a documented status/);
    const health = { status: 200, type: 'application/json', body: { status: 'ok' } } as never;
    expect(() => contract.check('get', '/health', health)).not.toThrow();
  });
});
