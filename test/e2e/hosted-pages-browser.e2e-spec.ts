import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { crc32, deflateSync } from 'node:zlib';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { browserSuite, launchChromium, screenshot, seriousViolations, VIEWPORTS } from '@test/support/browser';
import { createTenant, createTestApp, Tenant, TestApp } from '@test/support/test-app';

/** A solid-colour PNG of `size`×`size` pixels (a logo that shows in the screenshots). */
function solidPng(size: number, rgb: [number, number, number]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), body.length + 4);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: size }, () => rgb).flat())]);
  return Buffer.concat([
    Buffer.from('89504e470d0a1a0a', 'hex'),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(Array.from({ length: size }, () => row)))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
const LOGO = solidPng(48, [204, 51, 0]);
const PNG = LOGO;
const TIME_ZONE = 'Asia/Tokyo';

interface UploadSessionView {
  id: string;
  status: string;
  url: string | null;
  expiresAt: string;
  media: { key: string; publicUrl: string; fileName: string }[];
}

/**
 * Issue 13 as a person meets it, in Chromium on a desktop and a 390×844 phone: the platform's
 * branding on every hosted page (2), words for people (3), no JSON for a mangled link (4), the
 * upload page's polish (5) and files that cannot be rewritten once sent (6). The connect and
 * upload pages pass axe-core with no serious or critical violation. Item 1 (a set of files the
 * person corrects) is upload-session-browser.e2e-spec.ts. Screenshots: var/screenshots/hosted-*.png.
 */
browserSuite('hosted-pages-browser')('hosted pages in a browser', () => {
  let t: TestApp;
  let acme: Tenant;
  let plain: Tenant;
  let browser: Browser;
  let logos: Server;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sps-hosted-browser-'));
    t = await createTestApp({ env: { SANDBOX_AUTO_CONSENT: 'false', MEDIA_LOCAL_DIR: dir } });
    acme = await createTenant(t, { workspaceName: 'Acme Holdings' });
    plain = await createTenant(t, { workspaceName: 'Northwind Studio' });
    logos = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(LOGO));
    await new Promise<void>((ok) => logos.listen(0, '127.0.0.1', ok));
    await t
      .http()
      .patch(`/v1/profiles/${acme.profileId}`)
      .set(acme.auth)
      .send({
        branding: {
          displayName: 'Acme',
          logoUrl: `http://127.0.0.1:${(logos.address() as AddressInfo).port}/acme.png`,
          accentColor: '#ffcc00',
          supportUrl: 'https://acme.example/help',
        },
      })
      .expect(200);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((ok) => logos?.close(ok));
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const connectSession = async (tenant: Tenant, platform: string) =>
    (await t.http().post('/v1/connect/sessions').set(tenant.auth).send({ platform }).expect(201)).body as {
      id: string;
      url: string;
    };
  const uploadSession = async (tenant: Tenant, body: Record<string, unknown> = {}) =>
    (await t.http().post('/v1/media/upload-sessions').set(tenant.auth).send(body).expect(201))
      .body as UploadSessionView;
  const readUpload = async (tenant: Tenant, id: string) =>
    (await t.http().get(`/v1/media/upload-sessions/${id}`).set(tenant.auth).expect(200)).body as UploadSessionView;

  describe.each(VIEWPORTS)('on $name ($width×$height)', (viewport) => {
    let context: BrowserContext;
    let page: Page;
    /** Every URL the page loaded (to prove nothing comes from another host). */
    let loaded: string[];
    const shot = (step: string) => screenshot(page, `hosted-${viewport.name}-${step}`);

    beforeAll(async () => {
      context = await browser.newContext({
        viewport: { width: viewport.width, height: viewport.height },
        locale: 'en-US',
        timezoneId: TIME_ZONE,
      });
      page = await context.newPage();
      page.on('request', (r) => loaded.push(r.url()));
    });
    afterAll(async () => context?.close());
    beforeEach(() => {
      loaded = [];
    });

    const expectOwnHostOnly = () => {
      const foreign = loaded.filter((u) => !u.startsWith(t.url) && !u.startsWith('data:'));
      expect(foreign).toEqual([]);
    };
    const expectBrand = async (name: string) => {
      expect(await page.locator('header .brand-name').innerText()).toBe(name);
      const logo = page.locator('header img');
      const decoded = await logo.evaluate((img) => {
        const i = img as unknown as { complete: boolean; naturalWidth: number };
        return i.complete && i.naturalWidth > 0;
      });
      expect(decoded).toBe(true);
      expect(await logo.getAttribute('src')).toMatch(new RegExp(`^/branding/${acme.profileId}/logo\\?v=`));
      const support = page.getByRole('link', { name: 'Contact Acme' });
      expect(await support.getAttribute('href')).toBe('https://acme.example/help');
    };

    it('item 2: the connect picker and result page name and show the platform (logo, colour, support link)', async () => {
      const s = await connectSession(acme, 'facebook');
      await page.goto(s.url);
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.getByRole('heading', { name: 'Choose what to connect' }).waitFor();
      expect(await page.locator('main p.ask').innerText()).toBe('Acme wants to publish to your Facebook Pages.');
      await expectBrand('Acme');
      const connect = page.getByRole('button', { name: 'Connect selected' });
      const colours = await connect.evaluate((b) => {
        const css = (globalThis as unknown as { getComputedStyle: (e: unknown) => Record<string, string> })
          .getComputedStyle;
        return [css(b).backgroundColor, css(b).color];
      });
      expect(colours).toEqual(['rgb(255, 204, 0)', 'rgb(0, 0, 0)']);
      expect((await connect.boundingBox())!.height).toBeGreaterThanOrEqual(44);
      expect(await seriousViolations(page)).toEqual([]);
      await shot('2-connect-picker-branded');

      await page.getByRole('checkbox').first().check();
      await connect.click();
      await page.getByRole('heading', { name: 'Facebook connected' }).waitFor();
      expect(await page.locator('main p.ask').innerText()).toBe('Acme can now publish to:');
      await expectBrand('Acme');
      expect(await seriousViolations(page)).toEqual([]);
      await shot('2-connect-result-branded');
      expectOwnHostOnly();
    });

    it('item 2: the upload page shows the branding; without branding, pages say the workspace name', async () => {
      const branded = await uploadSession(acme);
      await page.goto(branded.url!);
      await page.getByRole('heading', { name: 'Upload media' }).waitFor();
      expect(await page.locator('main p.ask').innerText()).toBe('Acme asks you for photos or videos.');
      await expectBrand('Acme');
      expect(await seriousViolations(page)).toEqual([]);
      await shot('2-upload-branded');
      expectOwnHostOnly();

      const s = await connectSession(plain, 'linkedin');
      await page.goto(s.url);
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.getByRole('heading', { name: 'Choose what to connect' }).waitFor();
      expect(await page.locator('header .brand-name').innerText()).toBe('Northwind Studio');
      expect(await page.locator('main p.ask').innerText()).toBe(
        'Northwind Studio wants to publish to your LinkedIn profile and company pages.',
      );
      expect(await page.locator('header img').count()).toBe(0);
      expect(await page.locator('legend').allInnerTexts()).toEqual(['Your personal profile', 'Company pages']);
      expect(await seriousViolations(page)).toEqual([]);
      await shot('2-connect-picker-workspace-name');
    });

    it('item 3: refusals, a second tab and unfinished connections are told in words for people', async () => {
      // Refused consent: addressed to the person, with the next step.
      const refused = await connectSession(acme, 'youtube');
      await page.goto(refused.url);
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('heading', { name: 'YouTube not connected' }).waitFor();
      expect(await page.locator('main p').innerText()).toBe(
        'You chose not to connect YouTube, so nothing was connected. If you want to try again, open the connect link you were given once more.',
      );
      await expectBrand('Acme');
      expect(await seriousViolations(page)).toEqual([]);
      await shot('3-connect-refused');

      // A connection left at the network's consent page: the end page says how to continue.
      const unfinished = await connectSession(acme, 'facebook');
      await page.goto(unfinished.url);
      await page.getByRole('button', { name: 'Allow' }).waitFor();
      const token = new URL(unfinished.url).searchParams.get('token')!;
      await page.goto(`${t.url}/connect/${unfinished.id}/done?token=${encodeURIComponent(token)}`);
      await page.getByRole('heading', { name: 'Connection not finished' }).waitFor();
      expect(await page.locator('main p').innerText()).toContain(
        'open the connect link you were given again to continue',
      );
      await expectBrand('Acme');
      expect(await seriousViolations(page)).toEqual([]);
      await shot('3-connect-not-finished');

      // The sign-in answer opened again (a second tab): said so, with how to start over.
      const twice = await connectSession(acme, 'tiktok');
      let callback = '';
      page.on('request', (r) => {
        if (r.url().includes('/connect/callback/')) callback = r.url();
      });
      await page.goto(twice.url);
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.getByRole('heading', { name: 'TikTok connected' }).waitFor();
      await page.goto(callback);
      await page.getByRole('heading', { name: 'This sign-in was already used' }).waitFor();
      expect(await page.locator('main p').innerText()).toContain('perhaps in another tab or window');
      expect(await page.locator('main p').innerText()).toContain('open the connect link you were given again');
      await shot('3-connect-already-used');

      // A file of the wrong kind and a HEIC photo: named, with what is accepted or how to send it.
      const upload = await uploadSession(acme);
      await page.goto(upload.url!);
      await page.getByLabel('Files to upload').setInputFiles([
        { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') },
        { name: 'IMG_0001.HEIC', mimeType: 'image/heic', buffer: Buffer.from('....ftypheic') },
      ]);
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
      const alert = page.getByRole('alert');
      await alert.filter({ hasText: 'notes.txt cannot be uploaded' }).waitFor();
      expect(await alert.innerText()).toContain('this page takes photos (JPG, PNG, GIF, WebP) and videos (MP4, MOV)');
      expect(await alert.innerText()).toContain('IMG_0001.HEIC is a HEIC photo');
      expect(await alert.innerText()).toContain('Most Compatible');
      expect(await alert.innerText()).not.toMatch(/fileType|text\/plain/);
      expect(await seriousViolations(page)).toEqual([]);
      await shot('3-upload-refused-kinds');
      expect((await readUpload(acme, upload.id)).status).toBe('pending');
    });

    it('item 4: a mangled hosted link shows a page for people, not JSON', async () => {
      for (const path of [
        '/connect/',
        `/connect/3f2b9c7e-1111-4222-8333-444455556666/foo`,
        '/media/upload-sessions/',
        '/media/upload-sessions/3f2b9c7e-1111-4222-8333-444455556666?token=wrong',
      ]) {
        const res = await page.goto(`${t.url}${path}`);
        expect(res!.headers()['content-type']).toMatch(/^text\/html/);
        await page.getByRole('heading', { name: 'Link not valid' }).waitFor();
        expect(await page.locator('body').innerText()).not.toContain('"error"');
      }
      expect(await seriousViolations(page)).toEqual([]);
      await shot('4-mangled-link');
    });

    it('item 5: one file, local expiry time, tap targets, and a page that says it is done', async () => {
      const one = await uploadSession(acme, { maxFiles: 1 });
      await page.goto(one.url!);
      const input = page.getByLabel('File to upload');
      expect(await input.getAttribute('multiple')).toBeNull();
      expect(await page.locator('#files-hint').innerText()).toBe('Pick one photo or video.');
      expect(await page.locator('#intro').innerText()).toContain('Choose one file');
      const local = new Date(one.expiresAt).toLocaleString('en-US', {
        timeZone: TIME_ZONE,
        dateStyle: 'medium',
        timeStyle: 'short',
      });
      expect(await page.locator('#expires').innerText()).toBe(local);
      for (const target of [input, page.getByRole('button', { name: 'Upload', exact: true })])
        expect((await target.boundingBox())!.height).toBeGreaterThanOrEqual(44);
      expect(await seriousViolations(page)).toEqual([]);
      await shot('5-upload-one-file');

      await input.setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: PNG });
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
      await page.getByRole('button', { name: 'Remove photo.png' }).waitFor();
      await page.getByRole('button', { name: 'Finish' }).click();
      await page.getByRole('heading', { name: 'Upload complete' }).waitFor();
      expect(await page.title()).toBe('Upload complete');
      expect(await page.locator('#intro').innerText()).toBe('Your files were sent. You can close this page.');
      expect(await page.locator('#upload-form').isVisible()).toBe(false);
      expect(await seriousViolations(page)).toEqual([]);
      await shot('5-upload-complete');
    });

    it('item 6: a stored file is written once and its bytes must match its type', async () => {
      const s = await uploadSession(acme, { maxFiles: 2 });
      const issued: { uploadUrl: string; key: string }[] = [];
      page.on('response', async (r) => {
        if (r.url().endsWith(`/media/upload-sessions/${s.id}/files`) && r.ok())
          issued.push((await r.json()) as { uploadUrl: string; key: string });
      });
      await page.goto(s.url!);
      // Bytes that are not what they claim: refused, named, nothing kept.
      await page
        .getByLabel('Files to upload')
        .setInputFiles({ name: 'fake.png', mimeType: 'image/png', buffer: Buffer.from('<html>not a png</html>') });
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
      await page.getByRole('alert').filter({ hasText: 'fake.png is not a PNG file inside' }).waitFor();
      await shot('6-upload-signature-refused');

      await page.getByLabel('Files to upload').setInputFiles({ name: 'real.png', mimeType: 'image/png', buffer: PNG });
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
      await page.getByRole('button', { name: 'Remove real.png' }).waitFor();
      await page.getByRole('button', { name: 'Finish' }).click();
      await page.getByRole('heading', { name: 'Upload complete' }).waitFor();
      const done = await readUpload(acme, s.id);
      expect(done.media.map((m) => m.fileName)).toEqual(['real.png']);
      const target = issued.find((i) => i.key === done.media[0].key)!;

      // The signed URL used again after completion, from the page itself: refused, both times.
      const attempts = await page.evaluate(async (url) => {
        const put = (body: string | Blob) =>
          fetch(url, { method: 'PUT', headers: { 'Content-Type': 'image/png' }, body }).then(async (r) => ({
            status: r.status,
            body: (await r.json()) as { error: { details?: { field?: string } } },
          }));
        return [
          await put('<script>alert(1)</script>'),
          await put(new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47])])),
        ];
      }, target.uploadUrl);
      expect(attempts.map((a) => [a.status, a.body.error.details?.field])).toEqual([
        [400, 'key'],
        [400, 'key'],
      ]);

      // The served object is still the original, shown as an image.
      const served = await page.goto(done.media[0].publicUrl);
      expect(served!.headers()['content-type']).toBe('image/png');
      expect(Buffer.from(await served!.body())).toEqual(PNG);
      expect(await page.locator('img').count()).toBe(1);
      await shot('6-served-original');
    });
  });
});
