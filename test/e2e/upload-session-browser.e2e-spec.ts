import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Browser, chromium, Page } from 'playwright-core';
import { createTenant, createTestApp, Tenant, TestApp } from '../support/test-app';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const MP4 = Buffer.from('000000186674797069736f6d0000020069736f6d69736f32', 'hex');

interface SessionView {
  id: string;
  status: string;
  url: string | null;
  media: { key: string; publicUrl: string; fileType: string; fileName: string }[];
}

/** A person picking files on the hosted upload page in Chromium. */
const suite = existsSync(CHROMIUM) ? describe : describe.skip;
if (!existsSync(CHROMIUM))
  console.warn(`upload-session-browser: skipped, ${CHROMIUM} not found (apt-get install -y chromium)`);

suite('hosted upload session in a browser', () => {
  let t: TestApp;
  let tenant: Tenant;
  let browser: Browser;
  let page: Page;
  let dir: string;

  const session = async (id: string): Promise<SessionView> =>
    (await t.http().get(`/v1/media/upload-sessions/${id}`).set(tenant.auth).expect(200)).body as SessionView;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sps-media-browser-'));
    t = await createTestApp({ env: { MEDIA_LOCAL_DIR: dir } });
    tenant = await createTenant(t);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(async () => {
    page = await browser.newPage();
  });
  afterEach(async () => page.close());

  it('should upload the files a person picks and complete the session', async () => {
    const created = (
      await t.http().post('/v1/media/upload-sessions').set(tenant.auth).send({ maxFiles: 3 }).expect(201)
    ).body as SessionView;
    expect(created).toMatchObject({ status: 'pending', media: [] });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));

    await page.goto(created.url!);
    await page.getByRole('heading', { name: 'Upload media' }).waitFor();
    await page.getByLabel('Files to upload').setInputFiles([
      { name: 'pixel.png', mimeType: 'image/png', buffer: PNG },
      { name: 'clip.mp4', mimeType: 'video/mp4', buffer: MP4 },
    ]);
    await page.getByRole('button', { name: 'Upload', exact: true }).click();

    await page.getByRole('heading', { name: 'Upload complete' }).waitFor();
    expect(await page.getByRole('status').innerText()).toContain('2 file(s) uploaded');
    expect(await page.getByRole('listitem').allInnerTexts()).toEqual(['pixel.png', 'clip.mp4']);
    expect(errors).toEqual([]);

    const done = await session(created.id);
    expect(done.status).toBe('completed');
    expect(done.url).toBeNull();
    expect(done.media.map((m) => [m.fileName, m.fileType])).toEqual([
      ['pixel.png', 'image/png'],
      ['clip.mp4', 'video/mp4'],
    ]);
    const png = await fetch(done.media[0]!.publicUrl);
    expect(png.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await png.arrayBuffer())).toEqual(PNG);
  });

  it('should send the person to redirectUrl when done', async () => {
    const created = (
      await t
        .http()
        .post('/v1/media/upload-sessions')
        .set(tenant.auth)
        .send({ redirectUrl: `${t.url}/health?from=upload` })
        .expect(201)
    ).body as SessionView;
    await page.goto(created.url!);
    await page.getByLabel('Files to upload').setInputFiles({ name: 'one.png', mimeType: 'image/png', buffer: PNG });
    await Promise.all([
      page.waitForURL(/\/health\?/),
      page.getByRole('button', { name: 'Upload', exact: true }).click(),
    ]);
    const url = new URL(page.url());
    expect(Object.fromEntries(url.searchParams)).toEqual({ from: 'upload', session: created.id, status: 'completed' });
    expect((await session(created.id)).media).toHaveLength(1);
  });

  it('should tell the person when a file type is not accepted, and keep the session pending', async () => {
    const created = (await t.http().post('/v1/media/upload-sessions').set(tenant.auth).send({}).expect(201))
      .body as SessionView;
    await page.goto(created.url!);
    await page
      .getByLabel('Files to upload')
      .setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'not accepted' }).waitFor();
    expect(await page.getByRole('button', { name: 'Upload', exact: true }).isEnabled()).toBe(true);
    expect((await session(created.id)).status).toBe('pending');
  });
});
