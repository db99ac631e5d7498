import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createTenant, createTestApp, TestApp } from '@test/support/test-app';

describe('MCP server capabilities (stateless)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it('should not advertise tools.listChanged: a stateless server never sends list_changed', async () => {
    const tenant = await createTenant(t);
    const client = new Client({ name: 'mcp-capabilities', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${tenant.apiKey}` } },
      }),
    );
    try {
      const caps = client.getServerCapabilities();
      expect(caps?.tools).toBeDefined();
      expect(caps?.tools?.listChanged).not.toBe(true);
    } finally {
      await client.close();
    }
  });
});
