import { execFile } from 'node:child_process';
import { CLIENT_RETURN_URL, CookieJar, follow, parseForm, submitForm } from '@test/support/connect-flow';
import { createTenant, createTestApp, Tenant, TestApp } from '@test/support/test-app';

/**
 * The OAuth state is bound to the browser that opened the connect link (a cookie holding a nonce
 * whose hash is on the session): a consent link forwarded to someone else cannot connect their
 * accounts to the sender's profile.
 */
describe('connect flow bound to the browser that started it', () => {
  let t: TestApp;
  let owner: Tenant;

  beforeAll(async () => {
    t = await createTestApp({ env: { SANDBOX_AUTO_CONSENT: 'false' } });
    owner = await createTenant(t);
  });
  afterAll(async () => t.close());

  const create = async () =>
    (
      await t
        .http()
        .post('/v1/connect/sessions')
        .set(owner.auth)
        .send({ platform: 'facebook', redirectUrl: CLIENT_RETURN_URL })
        .expect(201)
    ).body as { id: string; url: string };

  it('should set an HttpOnly, SameSite=Lax cookie and store only the hash of its nonce', async () => {
    const { id, url } = await create();
    const sender = new CookieJar();
    await follow(url, { stopAt: CLIENT_RETURN_URL, jar: sender });
    const line = sender.received.find((l) => /^(__Host-)?sps_connect=/.test(l));
    expect(line).toBeDefined();
    expect(line).toMatch(/;\s*HttpOnly/i);
    expect(line).toMatch(/;\s*SameSite=Lax/i);
    expect(line).toMatch(/;\s*Path=\//i);
    const nonce = line!.split(';')[0].split('=')[1];
    const [row] = await t.ds.query<
      {
        browser_nonce_hash: string | null;
      }[]
    >(`SELECT browser_nonce_hash FROM connect_sessions WHERE id = $1`, [id]);
    expect(row.browser_nonce_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.browser_nonce_hash).not.toContain(nonce);
  });

  it('should refuse a consent finished in another browser, and still let the first browser finish', async () => {
    const { id, url } = await create();
    const sender = new CookieJar();
    const consent = await follow(url, { stopAt: CLIENT_RETURN_URL, jar: sender });
    const form = parseForm(consent.body, consent.url)!;
    expect(new URL(form.action).pathname).toBe('/sandbox/_control/consent');

    // The consent page (carrying the state) is forwarded to someone else, who allows it.
    const stranger = new CookieJar();
    const forwarded = await submitForm(form, { decision: 'allow' }, CLIENT_RETURN_URL, stranger);
    expect(forwarded.status).toBe(400);
    expect(forwarded.body).toContain('another browser');
    const after = await t.http().get(`/v1/connect/sessions/${id}`).set(owner.auth).expect(200);
    expect(after.body).toMatchObject({ status: 'pending', accounts: [] });
    const connected = await t.ds.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM social_accounts WHERE profile_id = $1`,
      [owner.profileId],
    );
    expect(connected[0].n).toBe(0);

    // The browser that started it can still finish (its consent page was used up: it opens the link again).
    const again = await follow(url, { stopAt: CLIENT_RETURN_URL, jar: sender });
    const page = await submitForm(parseForm(again.body, again.url)!, { decision: 'allow' }, CLIENT_RETURN_URL, sender);
    const picker = parseForm(page.body, page.url)!;
    const end = await submitForm(
      picker,
      { action: 'connect', accounts: picker.accounts.slice(0, 1) },
      CLIENT_RETURN_URL,
      sender,
    );
    expect(end.url).toContain(`session=${id}`);
    expect(end.url).toContain('status=completed');
  });

  it('should refuse a callback with no cookie at all', async () => {
    const { url } = await create();
    const consent = await follow(url, { stopAt: CLIENT_RETURN_URL, jar: new CookieJar() });
    const form = parseForm(consent.body, consent.url)!;
    const bare = new CookieJar();
    const end = await submitForm(form, { decision: 'allow' }, CLIENT_RETURN_URL, bare);
    expect(end.status).toBe(400);
  });
});

describe('connect flow driven with curl (README)', () => {
  let t: TestApp;
  let owner: Tenant;

  beforeAll(async () => {
    t = await createTestApp();
    owner = await createTenant(t);
  });
  afterAll(async () => t.close());

  const curl = (args: string[]) =>
    new Promise<string>((resolve, reject) =>
      execFile('curl', args, { timeout: 20_000 }, (err, stdout) =>
        err ? reject(new Error(err.message)) : resolve(stdout),
      ),
    );

  it("should connect with `curl -sL -b ''` and not without the cookie engine", async () => {
    const session = async () =>
      (await t.http().post('/v1/connect/sessions').set(owner.auth).send({ platform: 'linkedin' }).expect(201)).body as {
        id: string;
        url: string;
      };
    const without = await session();
    const refused = await curl(['-sL', '-o', '/dev/null', '-w', '%{http_code}', without.url]);
    expect(refused).toBe('400');
    const withJar = await session();
    const end = await curl(['-sL', '-b', '', '-o', '/dev/null', '-w', '%{url_effective}', withJar.url]);
    expect(end).toContain(`/connect/${withJar.id}/done?token=`);
    const read = await t.http().get(`/v1/connect/sessions/${withJar.id}`).set(owner.auth).expect(200);
    expect(read.body.status).toBe('completed');
  });
});
