import type { Browser, Page } from 'playwright-core';
import type { AccountDto } from '@/modules/accounts/dto/account.dto';
import { browserSuite, launchChromium } from '@test/support/browser';
import { createTenant, createTestApp, Tenant, TestApp } from '@test/support/test-app';

/** A person clicking through the sandbox consent page and the hosted page picker in Chromium. */
browserSuite('connect-browser')('hosted connect in a browser (SANDBOX_AUTO_CONSENT=false)', () => {
  let t: TestApp;
  let tenant: Tenant;
  let browser: Browser;
  let page: Page;

  async function newSession(platform: string): Promise<{ id: string; url: string }> {
    const res = await t.http().post('/v1/connect/sessions').set(tenant.auth).send({ platform }).expect(201);
    return res.body as { id: string; url: string };
  }

  async function session(
    id: string,
  ): Promise<{ status: string; accounts: AccountDto[]; error: { code: string } | null }> {
    return (await t.http().get(`/v1/connect/sessions/${id}`).set(tenant.auth).expect(200)).body;
  }

  beforeAll(async () => {
    t = await createTestApp({ env: { SANDBOX_AUTO_CONSENT: 'false' } });
    tenant = await createTenant(t);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });
  beforeEach(async () => {
    page = await browser.newPage();
  });
  afterEach(async () => page.close());

  it('should connect the Facebook pages the person picks', async () => {
    const s = await newSession('facebook');
    await page.goto(s.url);
    await page.getByRole('button', { name: 'Allow' }).click();

    await page.getByRole('heading', { name: 'Choose what to connect' }).waitFor();
    const boxes = page.getByRole('checkbox');
    const offered = await boxes.count();
    expect(offered).toBeGreaterThan(1);
    const labels = await page.locator('label').allInnerTexts();
    expect(await page.locator('legend').allInnerTexts()).toEqual(['Facebook Pages']);
    expect(await page.locator('main p.ask').innerText()).toMatch(
      /^Test workspace \d+ wants to publish to your Facebook Pages\.$/,
    );
    expect(await page.locator('main p').nth(1).innerText()).toMatch(/gives access to \d+ Pages\./);
    await boxes.nth(0).check();
    await boxes.nth(offered - 1).check();
    await page.getByRole('button', { name: 'Connect selected' }).click();

    await page.getByRole('heading', { name: 'Facebook connected' }).waitFor();
    const listed = await page.getByRole('listitem').allInnerTexts();
    expect(listed).toHaveLength(2);

    const done = await session(s.id);
    expect(done.status).toBe('completed');
    expect(done.accounts).toHaveLength(2);
    expect(done.accounts.map((a) => a.name).sort()).toEqual([...listed].sort());
    for (const a of done.accounts) expect(labels.some((l) => l.trim().startsWith(a.name))).toBe(true);
    const accounts = await t.http().get('/v1/accounts?platform=facebook').set(tenant.auth).expect(200);
    expect(accounts.body.accounts.map((a: AccountDto) => a.id)).toEqual(
      expect.arrayContaining(done.accounts.map((a) => a.id)),
    );
  });

  it('should ask again on the picker when nothing is chosen', async () => {
    const s = await newSession('facebook');
    await page.goto(s.url);
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.getByRole('button', { name: 'Connect selected' }).click();
    await page.getByRole('alert').filter({ hasText: 'Choose at least one to connect' }).waitFor();
    await page.getByRole('checkbox').first().check();
    await page.getByRole('button', { name: 'Connect selected' }).click();
    await page.getByRole('heading', { name: 'Facebook connected' }).waitFor();
    expect((await session(s.id)).accounts).toHaveLength(1);
  });

  it('should connect a single-account network straight after consent', async () => {
    const s = await newSession('tiktok');
    await page.goto(s.url);
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.getByRole('heading', { name: 'TikTok connected' }).waitFor();
    const done = await session(s.id);
    expect(done).toMatchObject({ status: 'completed', accounts: [{ platform: 'tiktok', status: 'active' }] });
  });

  it('should fail the session when the person cancels on the consent page', async () => {
    const s = await newSession('youtube');
    await page.goto(s.url);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('heading', { name: 'YouTube not connected' }).waitFor();
    expect(await page.locator('main p').innerText()).toBe(
      'You chose not to connect YouTube, so nothing was connected. If you want to try again, open the connect link you were given once more.',
    );
    const done = await session(s.id);
    expect(done).toMatchObject({ status: 'failed', accounts: [], error: { code: 'access_denied' } });
  });
});
