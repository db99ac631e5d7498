import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { browserSuite, launchChromium, screenshot, seriousViolations, VIEWPORTS } from '@test/support/browser';
import { createTenant, createTestApp, Tenant, TestApp } from '@test/support/test-app';

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const MP4 = Buffer.from('000000186674797069736f6d0000020069736f6d69736f32', 'hex');

interface SessionView {
  id: string;
  status: string;
  url: string | null;
  media: { key: string; publicUrl: string; fileType: string; fileName: string }[];
}

/** A person picking files on the hosted upload page in Chromium. */
browserSuite('upload-session-browser')('hosted upload session in a browser', () => {
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
    browser = await launchChromium();
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
    page.on('response', (r) => r.status() >= 400 && errors.push(r.url()));

    await page.goto(created.url!);
    await page.getByRole('heading', { name: 'Upload media' }).waitFor();
    await page.getByLabel('Files to upload').setInputFiles([
      { name: 'pixel.png', mimeType: 'image/png', buffer: PNG },
      { name: 'clip.mp4', mimeType: 'video/mp4', buffer: MP4 },
    ]);
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.getByRole('status').filter({ hasText: '2 of 3 files in your list' }).waitFor();
    expect((await session(created.id)).status).toBe('pending'); // completed only by an explicit action
    await page.getByRole('button', { name: 'Finish' }).click();

    await page.getByRole('heading', { name: 'Upload complete' }).waitFor();
    expect(await page.getByRole('status').innerText()).toContain('2 file(s) uploaded');
    expect(await page.locator('#uploaded .name').allInnerTexts()).toEqual(['pixel.png', 'clip.mp4']);
    expect(await page.title()).toBe('Upload complete');
    expect(await page.locator('#intro').innerText()).toContain('Your files were sent');
    expect(errors).toEqual([]);

    const done = await session(created.id);
    expect(done.status).toBe('completed');
    expect(done.url).toBeNull();
    expect(done.media.map((m) => [m.fileName, m.fileType])).toEqual([
      ['pixel.png', 'image/png'],
      ['clip.mp4', 'video/mp4'],
    ]);
    const png = await fetch(done.media[0].publicUrl);
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
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.getByRole('button', { name: 'Remove one.png' }).waitFor();
    await Promise.all([page.waitForURL(/\/health\?/), page.getByRole('button', { name: 'Finish' }).click()]);
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
    await page.getByRole('alert').filter({ hasText: 'notes.txt cannot be uploaded: this page takes photos' }).waitFor();
    expect(await page.getByRole('button', { name: 'Upload', exact: true }).isEnabled()).toBe(true);
    expect((await session(created.id)).status).toBe('pending');
  });
  for (const viewport of VIEWPORTS) {
    it(`should let a person correct a partly failed upload, then finish with exactly their files (${viewport.name})`, async () => {
      await page.setViewportSize({ width: viewport.width, height: viewport.height });
      const shot = (step: string) => screenshot(page, `upload-retry-${viewport.name}-${step}`);
      const created = (
        await t.http().post('/v1/media/upload-sessions').set(tenant.auth).send({ maxFiles: 2 }).expect(201)
      ).body as SessionView;
      await page.goto(created.url!);
      expect(await seriousViolations(page)).toEqual([]);
      const box = await page.getByLabel('Files to upload').boundingBox();
      expect(box!.height).toBeGreaterThanOrEqual(44); // a proper tap target

      // A PNG and a .txt together: the PNG is stored, the .txt refused in plain words.
      await page.getByLabel('Files to upload').setInputFiles([
        { name: 'first.png', mimeType: 'image/png', buffer: PNG },
        { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') },
      ]);
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
      await page.getByRole('alert').filter({ hasText: 'notes.txt cannot be uploaded' }).waitFor();
      expect(await page.locator('#uploaded .name').allInnerTexts()).toEqual(['first.png']);
      await shot('1-partly-failed');
      expect(await seriousViolations(page)).toEqual([]);

      // Two more PNGs: only one fits; the page says so instead of failing forever.
      const second = Buffer.concat([PNG, Buffer.from([1])]);
      const third = Buffer.concat([PNG, Buffer.from([2])]);
      await page.getByLabel('Files to upload').setInputFiles([
        { name: 'second.png', mimeType: 'image/png', buffer: second },
        { name: 'third.png', mimeType: 'image/png', buffer: third },
      ]);
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
      await page.getByRole('alert').filter({ hasText: 'You can add 1 more file' }).waitFor();
      await shot('2-too-many');

      // Remove the first and add both: the set is {second, third}, each once.
      await page.getByRole('button', { name: 'Remove first.png' }).click();
      await page.getByRole('status').filter({ hasText: 'first.png was removed' }).waitFor();
      await page.getByLabel('Files to upload').setInputFiles([
        { name: 'second.png', mimeType: 'image/png', buffer: second },
        { name: 'third.png', mimeType: 'image/png', buffer: third },
      ]);
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
      await page.getByRole('status').filter({ hasText: '2 of 2 files in your list' }).waitFor();
      expect((await session(created.id)).status).toBe('pending');
      await shot('3-corrected');
      await page.getByRole('button', { name: 'Finish' }).click();
      await page.getByRole('heading', { name: 'Upload complete' }).waitFor();
      await shot('4-complete');
      expect(await seriousViolations(page)).toEqual([]);

      const done = await session(created.id);
      expect(done.status).toBe('completed');
      expect(done.media.map((m) => m.fileName)).toEqual(['second.png', 'third.png']);
      const bodies = await Promise.all(
        done.media.map(async (m) => Buffer.from(await (await fetch(m.publicUrl)).arrayBuffer())),
      );
      expect(bodies).toEqual([second, third]);
    });
  }

  it('should not count a file picked twice with the default limit', async () => {
    const created = (await t.http().post('/v1/media/upload-sessions').set(tenant.auth).send({}).expect(201))
      .body as SessionView;
    await page.goto(created.url!);
    const pick = () =>
      page.getByLabel('Files to upload').setInputFiles([
        { name: 'same.png', mimeType: 'image/png', buffer: PNG },
        { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('x') },
      ]);
    await pick();
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'notes.txt' }).waitFor();
    await pick();
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'notes.txt' }).waitFor();
    await page.getByRole('button', { name: 'Finish' }).click();
    await page.getByRole('heading', { name: 'Upload complete' }).waitFor();
    expect((await session(created.id)).media.map((m) => m.fileName)).toEqual(['same.png']);
  });

  it('should offer a single-file input for maxFiles 1', async () => {
    const created = (
      await t.http().post('/v1/media/upload-sessions').set(tenant.auth).send({ maxFiles: 1 }).expect(201)
    ).body as SessionView;
    await page.goto(created.url!);
    expect(await page.getByLabel('File to upload').getAttribute('multiple')).toBeNull();
    expect(await page.locator('#intro').innerText()).toContain('Choose one file');
  });
});
