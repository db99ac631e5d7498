import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { randomUUID } from 'node:crypto';
import { MCP_TOOLS } from '@/modules/mcp/mcp-tools';
import { createTenant, createTestApp, Tenant, TestApp } from '@test/support/test-app';
import { insertAccount } from '@test/support/publishing';

interface ToolText {
  isError?: boolean;
  content: { type: string; text?: string }[];
}

async function connect(t: TestApp, apiKey: string): Promise<Client> {
  const client = new Client({ name: 'mcp-e2e', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
  });
  await client.connect(transport);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolText> {
  return (await client.callTool({ name, arguments: args })) as ToolText;
}

/** The JSON an error result carries (second text block): { error: { code, message, requestId, details? }, status }. */
function errorOf(result: ToolText): {
  code: string;
  message: string;
  requestId: string;
  details?: Record<string, unknown>;
} {
  expect(result.isError).toBe(true);
  const json = result.content.map((c) => c.text ?? '').find((text) => text.startsWith('{'));
  return (JSON.parse(json!) as { error: { code: string; message: string; requestId: string } }).error;
}

describe('MCP server (/mcp)', () => {
  let t: TestApp;
  let tenant: Tenant;
  let client: Client;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t);
    client = await connect(t, tenant.apiKey);
  });
  afterAll(async () => {
    await client?.close();
    await t.close();
  });

  async function keyWith(permissions: string[]): Promise<string> {
    const res = await t
      .http()
      .post('/v1/api-keys')
      .set(tenant.auth)
      .send({ name: `mcp ${permissions.join(',')}`, permissions, rateLimitPerMinute: 1000 })
      .expect(201);
    return (res.body as { secret: string }).secret;
  }

  it('should list every tool in snake_case with an input schema and a description', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name).sort();
    expect(names).toEqual(MCP_TOOLS.map((tool) => tool.name).sort());
    expect(names).toEqual(
      expect.arrayContaining([
        'list_profiles',
        'list_accounts',
        'create_post',
        'create_posts_bulk',
        'get_queue',
        'list_queue_slots',
        'get_account_limits',
        'retry_post',
        'get_analytics_history',
        'list_events',
      ]),
    );
    for (const tool of tools) {
      expect(tool.name).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(tool.description?.length).toBeGreaterThan(30);
      expect(tool.inputSchema.type).toBe('object');
    }
    const retry = tools.find((tool) => tool.name === 'retry_post')!;
    expect(retry.inputSchema.required).toEqual(['id']);
    expect(Object.keys(retry.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['id', 'profileId', 'idempotencyKey']),
    );
  });

  it('should answer list_profiles with the REST body of GET /v1/profiles', async () => {
    const result = await call(client, 'list_profiles', { limit: 5 });
    expect(result.isError).toBeFalsy();
    const body = JSON.parse(result.content[0].text!) as { profiles: { id: string }[]; limit: number };
    expect(body.limit).toBe(5);
    expect(body.profiles.map((p) => p.id)).toContain(tenant.profileId);
    const rest = await t.http().get('/v1/profiles?limit=5').set(tenant.auth).expect(200);
    expect(body).toEqual(rest.body);
  });

  it('should answer get_profile for the home profile and for an id', async () => {
    const home = JSON.parse((await call(client, 'get_profile')).content[0].text!) as { profile: { id: string } };
    expect(home.profile.id).toBe(tenant.profileId);
    const byId = JSON.parse((await call(client, 'get_profile', { id: tenant.profileId })).content[0].text!) as {
      profile: { id: string };
    };
    expect(byId.profile.id).toBe(tenant.profileId);
  });

  it('should answer create_posts_bulk with the REST body of POST /v1/posts/bulk, dry run and creation', async () => {
    const account = await insertAccount(t, tenant, 'facebook');
    const posts = [
      { content: 'mcp bulk one', accountIds: [account.id] },
      { content: 'mcp bulk two', accountIds: [account.id] },
    ];
    const dry = await call(client, 'create_posts_bulk', { posts, dryRun: true });
    expect(dry.isError).toBeFalsy();
    expect(JSON.parse(dry.content[0].text!)).toMatchObject({ valid: true, results: [{ index: 0 }, { index: 1 }] });
    const created = await call(client, 'create_posts_bulk', { posts, idempotencyKey: 'mcp-bulk-1' });
    expect(created.isError).toBeFalsy();
    const body = JSON.parse(created.content[0].text!) as { posts: { id: string; state: string }[] };
    expect(body.posts.map((p) => p.state)).toEqual(['draft', 'draft']);
    const refused = errorOf(
      await call(client, 'create_posts_bulk', { posts: [{ content: 'x', accountIds: ['nope'] }] }),
    );
    expect(refused.code).toBe('invalid_request');
    expect(refused.details).toMatchObject({ errors: [{ index: 0, code: 'accounts_not_found' }] });
  });

  it('should pass firstComment through create_post and validate_post', async () => {
    const [fb, tiktok] = [await insertAccount(t, tenant, 'facebook'), await insertAccount(t, tenant, 'tiktok')];
    const created = await call(client, 'create_post', {
      content: 'mcp with a comment',
      accountIds: [fb.id],
      firstComment: 'Link in bio',
    });
    expect(created.isError).toBeFalsy();
    const body = JSON.parse(created.content[0].text!) as { post: { targets: { firstComment: unknown }[] } };
    expect(body.post.targets[0].firstComment).toEqual({ status: 'pending', id: null, error: null });
    const refused = errorOf(
      await call(client, 'create_post', {
        content: { message: 'x', videoUrl: 'https://media.example.com/v.mp4', firstComment: 'y' },
        accountIds: [tiktok.id],
      }),
    );
    expect(refused).toMatchObject({ code: 'invalid_request', details: { field: 'content.firstComment' } });
    expect(refused.message).toContain(tiktok.id);
  });

  it('should answer get_queue and list_queue_slots with the REST bodies of the queue', async () => {
    await t
      .http()
      .put('/v1/queue')
      .set(tenant.auth)
      .send({ timezone: 'UTC', slots: [{ day: 'mon', time: '09:00' }] })
      .expect(200);
    const queue = JSON.parse((await call(client, 'get_queue')).content[0].text!) as unknown;
    expect(queue).toEqual({ timezone: 'UTC', slots: [{ day: 'mon', time: '09:00' }] });
    const next = JSON.parse((await call(client, 'list_queue_slots', { count: 2 })).content[0].text!) as {
      slots: string[];
    };
    expect(next.slots).toHaveLength(2);
    expect(next.slots.every((s) => s.endsWith('T09:00:00.000Z'))).toBe(true);
  });

  it('should answer get_account_limits with the REST body of GET /v1/accounts/{id}/limits', async () => {
    const li = await insertAccount(t, tenant, 'linkedin');
    const rest = (await t.http().get(`/v1/accounts/${li.id}/limits`).set(tenant.auth).expect(200)).body as unknown;
    const result = await call(client, 'get_account_limits', { id: li.id });
    expect(JSON.parse(result.content[0]?.text ?? '')).toEqual(rest);
    expect(rest).toMatchObject({ limits: [{ name: 'posts_per_day', used: 0 }] });
    expect(errorOf(await call(client, 'get_account_limits', { id: '00000000-0000-4000-8000-000000000000' })).code).toBe(
      'not_found',
    );
  });

  it('should answer list_events with the audit trail', async () => {
    await keyWith(['profiles:read']); // records api_key.created
    const result = await call(client, 'list_events', { type: 'api_key.created', limit: 10 });
    expect(result.isError).toBeFalsy();
    const body = JSON.parse(result.content[0].text!) as { events: { type: string }[]; total: number };
    expect(body.total).toBeGreaterThanOrEqual(1);
    expect(body.events.every((e) => e.type === 'api_key.created')).toBe(true);
  });

  it('should answer isError with insufficient_permission and a request id when the key lacks the permission', async () => {
    const limited = await connect(t, await keyWith(['profiles:read']));
    try {
      const result = await call(limited, 'list_events');
      const error = errorOf(result);
      expect(error.code).toBe('insufficient_permission');
      expect(error.details).toEqual({ required: 'audit:read' });
      expect(error.requestId).toMatch(/^req_/);
      expect(result.content[0].text).toBe(`insufficient_permission: ${error.message} (requestId: ${error.requestId})`);
      // Tools of the same key whose permission it holds still work.
      expect((await call(limited, 'list_profiles')).isError).toBeFalsy();
    } finally {
      await limited.close();
    }
  });

  it('should answer retry_post like POST /v1/posts/{id}/retry: not_found for an unknown post, insufficient_permission without posts:write', async () => {
    const missing = await call(client, 'retry_post', { id: randomUUID(), idempotencyKey: randomUUID() });
    expect(errorOf(missing)).toMatchObject({ code: 'not_found', requestId: expect.stringMatching(/^req_/) });
    const readOnly = await connect(t, await keyWith(['posts:read']));
    try {
      const denied = errorOf(await call(readOnly, 'retry_post', { id: randomUUID() }));
      expect(denied).toMatchObject({ code: 'insufficient_permission', details: { required: 'posts:write' } });
    } finally {
      await readOnly.close();
    }
  });

  it.each([
    ['retry_post', (id: string) => ({ id }), (id: string) => ['post', `/v1/posts/${id}/retry`]],
    [
      'get_analytics_history',
      () => ({ from: '2026-01-01', to: '2026-01-31' }),
      () => ['get', '/v1/analytics/history?from=2026-01-01&to=2026-01-31'],
    ],
  ] as const)('should answer %s with the same error code as its REST endpoint', async (name, args, rest) => {
    const missing = randomUUID();
    const keys = [tenant.apiKey, await keyWith(['profiles:read'])];
    for (const apiKey of keys) {
      const mcp = await connect(t, apiKey);
      try {
        const [method, path] = rest(missing);
        const expected = await (method === 'post' ? t.http().post(path) : t.http().get(path)).set({
          Authorization: `Bearer ${apiKey}`,
        });
        const result = await call(mcp, name, args(missing));
        if (expected.status < 300) {
          expect(result.isError).toBeFalsy();
        } else {
          expect(errorOf(result).code).toBe((expected.body as { error: { code: string } }).error.code);
        }
      } finally {
        await mcp.close();
      }
    }
  });

  it('should reject invalid tool arguments before calling the API', async () => {
    const result = (await client.callTool({ name: 'list_posts', arguments: { limit: 1000 } })) as ToolText;
    expect(result.isError).toBe(true);
  });

  it('should answer 401 authentication_required in the error envelope without a key', async () => {
    const res = await t
      .http()
      .post('/mcp')
      .set('Accept', 'application/json, text/event-stream')
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} })
      .expect(401);
    expect(res.body.error).toMatchObject({ code: 'authentication_required', requestId: res.headers['x-request-id'] });
    expect(res.body.message).toBe(res.body.error.message);
  });

  it('should answer 401 invalid_api_key for an unknown key, and the client should fail to connect', async () => {
    const res = await t
      .http()
      .post('/mcp')
      .set('Authorization', 'Bearer svc_live_doesnotexistdoesnotexistdoesnotexist')
      .send({ jsonrpc: '2.0', id: 1, method: 'ping' })
      .expect(401);
    expect(res.body.error.code).toBe('invalid_api_key');
    await expect(connect(t, 'svc_live_doesnotexistdoesnotexistdoesnotexist')).rejects.toThrow(/401|invalid_api_key/);
  });
});
