import { PlatformRegistry } from '@/modules/networks/network-registry';
import { LinkedInSandbox } from '@/modules/networks/linkedin/linkedin-sandbox';
import { connectSandbox } from '@test/support/sandbox-connect';
import { createTestApp, TestApp } from '@test/support/test-app';

/** How the simulators read a request: where the token is, and what a list reads to answer. */
describe('sandbox requests', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it('should read the bearer header when a Graph call has an empty access_token parameter', async () => {
    const { tokens } = await connectSandbox(t.app.get(PlatformRegistry).get('facebook'));
    const me = (query: string): Promise<Response> =>
      fetch(`${t.url}/sandbox/facebook/v23.0/me${query}`, {
        headers: { authorization: `Bearer ${tokens.accessToken}` },
      });
    expect((await me('?access_token=')).status).toBe(200);
    expect((await me('')).status).toBe(200);
    // A token given as a parameter still comes before the header.
    expect((await me('?access_token=not-a-token')).status).toBe(400);
  });

  it("should count LinkedIn's posts for the paging total without reading them all again", async () => {
    const { tokens, accounts } = await connectSandbox(t.app.get(PlatformRegistry).get('linkedin'));
    const author = accounts[0].platformAccountId;
    const headers = {
      authorization: `Bearer ${tokens.accessToken}`,
      'linkedin-version': '202401',
      'x-restli-protocol-version': '2.0.0',
      'content-type': 'application/json',
    };
    for (const commentary of ['one', 'two', 'three']) {
      const body = { author, commentary, visibility: 'PUBLIC', distribution: {}, lifecycleState: 'PUBLISHED' };
      const res = await fetch(`${t.url}/sandbox/linkedin/rest/posts`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(201);
    }
    const reads = jest.spyOn(t.app.get(LinkedInSandbox).posts, 'get');
    const res = await fetch(
      `${t.url}/sandbox/linkedin/rest/posts?q=author&author=${encodeURIComponent(author)}&start=1&count=1`,
      { headers },
    );
    const page = (await res.json()) as { paging: { total: number }; elements: { commentary: string }[] };
    expect(page.paging.total).toBe(3);
    expect(page.elements.map((p) => p.commentary)).toEqual(['two']);
    expect(reads).toHaveBeenCalledTimes(1);
    // A fractional count pages as its whole part (Redis ranges take whole numbers; it was a 500).
    const fractional = await fetch(
      `${t.url}/sandbox/linkedin/rest/posts?q=author&author=${encodeURIComponent(author)}&start=0&count=2.5`,
      { headers },
    );
    expect(fractional.status).toBe(200);
    expect(((await fractional.json()) as typeof page).elements.map((p) => p.commentary)).toEqual(['three', 'two']);
  });

  it('should answer a name that is an Object key like any unknown one (404 media, 400 report metric)', async () => {
    for (const name of ['constructor', 'toString', '__proto__'])
      expect((await fetch(`${t.url}/sandbox/_control/media/${name}`)).status).toBe(404);
    const { tokens } = await connectSandbox(t.app.get(PlatformRegistry).get('youtube'));
    const report = (metrics: string): Promise<Response> =>
      fetch(
        `${t.url}/sandbox/youtube/v2/reports?ids=channel==MINE&metrics=${metrics}&dimensions=day&startDate=2026-01-01&endDate=2026-01-02`,
        { headers: { authorization: `Bearer ${tokens.accessToken}` } },
      );
    expect((await report('views')).status).toBe(200);
    for (const metric of ['constructor', 'toString']) {
      const res = await report(metric);
      expect(res.status).toBe(400);
      expect(JSON.stringify(await res.json())).toContain(`Unknown identifier (${metric})`);
    }
  });
});
