import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { LOCAL_MAX_UPLOAD_BYTES } from '@/modules/media/media-types';
import { UploadSigner } from '@/modules/media/storage/upload-signature';
import { expectMalformedJson, postMalformedJson } from '@test/support/e2e-helpers';
import { createTenant, createTestApp, Tenant, TestApp } from '@test/support/test-app';

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

describe('media uploads (local driver)', () => {
  let t: TestApp;
  let tenant: Tenant;
  let other: Tenant;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sps-media-'));
    t = await createTestApp({ env: { MEDIA_LOCAL_DIR: dir } });
    tenant = await createTenant(t);
    other = await createTenant(t);
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const createUpload = (body: Record<string, unknown>, who: Tenant = tenant) =>
    t.http().post('/v1/media/upload').set(who.auth).send(body);
  /** The path and query of an absolute URL of the app (supertest takes paths). */
  const local = (url: string) => {
    const u = new URL(url);
    expect(u.origin).toBe(t.url);
    return u.pathname + u.search;
  };

  describe('POST /v1/media/upload', () => {
    it('should give an upload URL that takes the bytes with a real HTTP PUT, then serve them at publicUrl', async () => {
      const res = await createUpload({ fileName: 'pixel.png', fileType: 'image/png' }).expect(200);
      const body = res.body as {
        uploadUrl: string;
        signedUrl: string;
        publicUrl: string;
        key: string;
        expiresAt: string;
      };
      expect(Object.keys(body).sort()).toEqual(['expiresAt', 'key', 'publicUrl', 'signedUrl', 'uploadUrl']);
      expect(body.signedUrl).toBe(body.uploadUrl);
      expect(body.key).toMatch(new RegExp(`^${tenant.profileId}/[0-9a-f-]{36}\\.png$`));
      expect(body.publicUrl).toBe(`${t.url}/media/files/${body.key}`);
      expect(Date.parse(body.expiresAt) - Date.now()).toBeGreaterThan(10 * 60_000);

      const before = await fetch(body.publicUrl);
      expect(before.status).toBe(404);
      const put = await fetch(body.uploadUrl, { method: 'PUT', headers: { 'Content-Type': 'image/png' }, body: PNG });
      expect(put.status).toBe(200);
      expect(await put.json()).toEqual({ key: body.key, publicUrl: body.publicUrl, size: PNG.length });

      const got = await fetch(body.publicUrl);
      expect(got.status).toBe(200);
      expect(got.headers.get('content-type')).toBe('image/png');
      expect(got.headers.get('x-content-type-options')).toBe('nosniff');
      expect(Buffer.from(await got.arrayBuffer())).toEqual(PNG);

      const [row] = await t.ds.query<Record<string, unknown>[]>(
        `SELECT status, size, profile_id, file_name, file_type FROM media WHERE key = $1`,
        [body.key],
      );
      expect(row).toEqual({
        status: 'uploaded',
        size: String(PNG.length),
        profile_id: tenant.profileId,
        file_name: 'pixel.png',
        file_type: 'image/png',
      });
      const events = await t.ds.query<{ type: string }[]>(
        `SELECT type FROM events WHERE profile_id = $1 AND data->>'key' = $2 ORDER BY created_at`,
        [tenant.profileId, body.key],
      );
      expect(events.map((e) => e.type)).toEqual(['media.upload_requested', 'media.uploaded']);
    });

    it('should accept every documented type and answer 415 unsupported_media_type for others', async () => {
      for (const fileType of ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'video/mp4', 'video/quicktime'])
        await createUpload({ fileName: 'f', fileType }).expect(200);
      for (const fileType of ['text/html', 'application/pdf', 'image/svg+xml', 'video/x-msvideo']) {
        const res = await createUpload({ fileName: 'f', fileType }).expect(415);
        expect(res.body.error.code).toBe('unsupported_media_type');
        expect(res.body.error.message).toContain(fileType);
      }
    });

    it('should answer 400 invalid_request naming a missing fileName or fileType', async () => {
      const noName = await createUpload({ fileType: 'image/png' }).expect(400);
      expect(noName.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'fileName' } });
      expect(noName.body.error.message).toContain('fileName');
      const noType = await createUpload({ fileName: 'a.png' }).expect(400);
      expect(noType.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'fileType' } });
    });

    it('should refuse a forged or tampered signature, an expired URL and a different Content-Type', async () => {
      const { uploadUrl, key } = (await createUpload({ fileName: 'p.png', fileType: 'image/png' }).expect(200))
        .body as { uploadUrl: string; key: string };
      const url = new URL(uploadUrl);
      const forged = new URL(url);
      forged.searchParams.set('sig', 'A'.repeat(43));
      const r1 = await t.http().put(local(forged.toString())).set('Content-Type', 'image/png').send(PNG).expect(400);
      expect(r1.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'sig' } });

      const extended = new URL(url);
      extended.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
      await t.http().put(local(extended.toString())).set('Content-Type', 'image/png').send(PNG).expect(400);

      const otherKey = url.pathname.replace(/[0-9a-f-]{36}\.png$/, '00000000-0000-4000-8000-000000000000.png');
      await t.http().put(`${otherKey}${url.search}`).set('Content-Type', 'image/png').send(PNG).expect(400);

      const expires = Math.floor(Date.now() / 1000) - 5;
      const sig = t.app.get(UploadSigner).sign(key, 'image/png', expires);
      const r2 = await t
        .http()
        .put(`/media/upload/${key}?expires=${expires}&sig=${sig}`)
        .set('Content-Type', 'image/png')
        .send(PNG)
        .expect(400);
      expect(r2.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'expires' } });
      expect(r2.body.error.message).toContain('expired');

      const r3 = await t.http().put(local(uploadUrl)).set('Content-Type', 'image/jpeg').send(PNG).expect(415);
      expect(r3.body.error.code).toBe('unsupported_media_type');
      await t.http().put(local(uploadUrl)).set('Content-Type', 'image/png').expect(400);
      const missing = await t.http().put(url.pathname).set('Content-Type', 'image/png').send(PNG).expect(400);
      expect(missing.body.error.details.field).toBe('expires');

      expect((await fetch(`${t.url}/media/files/${key}`)).status).toBe(404);
      // The genuine URL still works after the failed attempts.
      await t.http().put(local(uploadUrl)).set('Content-Type', 'image/png').send(PNG).expect(200);
    });

    it('should answer 413 payload_too_large for a body over the local limit, without keeping it', async () => {
      const { uploadUrl } = (await createUpload({ fileName: 'big.mp4', fileType: 'video/mp4' }).expect(200)).body as {
        uploadUrl: string;
      };
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(
          uploadUrl,
          {
            method: 'PUT',
            headers: { 'Content-Type': 'video/mp4', 'Content-Length': String(LOCAL_MAX_UPLOAD_BYTES + 1) },
          },
          (res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on('error', reject);
        // The parser refuses by Content-Length but drains the body before answering.
        const chunk = Buffer.alloc(1024 * 1024);
        for (let sent = 0; sent <= LOCAL_MAX_UPLOAD_BYTES; sent += chunk.length)
          req.write(
            sent + chunk.length > LOCAL_MAX_UPLOAD_BYTES + 1
              ? chunk.subarray(0, LOCAL_MAX_UPLOAD_BYTES + 1 - sent)
              : chunk,
          );
        req.end();
      });
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body).error.code).toBe('payload_too_large');
    });

    it('should keep JSON routes parsing JSON, and answer 404 for unknown files', async () => {
      expectMalformedJson(await postMalformedJson(t, '/v1/media/upload', tenant.auth));
      await t.http().get('/media/files/not-a-key/x.png').expect(404);
      await t.http().get(`/media/files/${tenant.profileId}/00000000-0000-4000-8000-000000000000.png`).expect(404);
    });
  });

  describe('POST /v1/upload/signed-url (older call)', () => {
    it('should answer { signedUrl, publicUrl, key } that work the same way', async () => {
      const res = await t
        .http()
        .post('/v1/upload/signed-url')
        .set(tenant.auth)
        .send({ fileName: 'clip.mp4', fileType: 'video/mp4' })
        .expect(200);
      expect(Object.keys(res.body).sort()).toEqual(['key', 'publicUrl', 'signedUrl']);
      const bytes = Buffer.from('000000186674797069736f6d0000020069736f6d69736f32', 'hex'); // an MP4's ftyp box
      expect(
        (await fetch(res.body.signedUrl, { method: 'PUT', headers: { 'Content-Type': 'video/mp4' }, body: bytes }))
          .status,
      ).toBe(200);
      const got = await fetch(res.body.publicUrl);
      expect(got.headers.get('content-type')).toBe('video/mp4');
      expect(Buffer.from(await got.arrayBuffer())).toEqual(bytes);
    });

    it('should answer 400 when fileName or fileType is missing', async () => {
      const res = await t.http().post('/v1/upload/signed-url').set(tenant.auth).send({}).expect(400);
      expect(res.body.error.code).toBe('invalid_request');
      await t.http().post('/v1/upload/signed-url').set(tenant.auth).send({ fileName: 'a' }).expect(400);
    });
  });

  describe('upload sessions over plain HTTP', () => {
    const page = (url: string) => {
      const u = new URL(url);
      return { path: u.pathname, token: u.searchParams.get('token')! };
    };

    it('should create a pending session, take files through the page calls and complete once', async () => {
      const created = await t
        .http()
        .post('/v1/media/upload-sessions')
        .set(tenant.auth)
        .send({ maxFiles: 2, redirectUrl: 'https://client.example.com/done' })
        .expect(201);
      expect(created.body).toMatchObject({
        status: 'pending',
        media: [],
        profileId: tenant.profileId,
        maxFiles: 2,
        completedAt: null,
      });
      const { id, url } = created.body as { id: string; url: string };
      expect(url).toMatch(new RegExp(`^${t.url}/media/upload-sessions/${id}\\?token=`));
      const { path, token } = page(url);

      const html = await t
        .http()
        .get(`${path}?token=${encodeURIComponent(token)}`)
        .expect(200);
      expect(html.headers['content-type']).toContain('text/html');
      expect(html.text).toContain('<input id="files" name="files" type="file" multiple');
      expect(html.text).toContain('<label for="files">');
      expect(html.headers['content-security-policy']).toMatch(/script-src 'nonce-/);
      expect(html.headers['referrer-policy']).toBe('no-referrer');
      await t.http().get(`${path}?token=wrong`).expect(404);
      await t
        .http()
        .post(`${path}/files`)
        .send({ token: 'wrong', fileName: 'a.png', fileType: 'image/png' })
        .expect(404);

      await t.http().post(`${path}/complete`).send({ token }).expect(400);
      await t.http().post(`${path}/files`).send({ token, fileName: 'a.txt', fileType: 'text/plain' }).expect(415);
      const file = await t
        .http()
        .post(`${path}/files`)
        .send({ token, fileName: 'a.png', fileType: 'image/png' })
        .expect(200);
      expect(
        (await fetch(file.body.uploadUrl, { method: 'PUT', headers: { 'Content-Type': 'image/png' }, body: PNG }))
          .status,
      ).toBe(200);
      await t.http().post(`${path}/files`).send({ token, fileName: 'b.png', fileType: 'image/png' }).expect(200); // issued, never uploaded
      const third = await t
        .http()
        .post(`${path}/files`)
        .send({ token, fileName: 'c.png', fileType: 'image/png' })
        .expect(400);
      expect(third.body.error.message).toContain('at most 2');

      const done = await t.http().post(`${path}/complete`).send({ token }).expect(200);
      expect(done.body).toEqual({
        status: 'completed',
        redirectUrl: `https://client.example.com/done?session=${id}&status=completed`,
        media: [
          {
            key: file.body.key,
            publicUrl: file.body.publicUrl,
            fileType: 'image/png',
            fileName: 'a.png',
            size: PNG.length,
          },
        ],
      });
      expect((await t.http().post(`${path}/complete`).send({ token }).expect(200)).body).toEqual(done.body);
      await t.http().post(`${path}/files`).send({ token, fileName: 'd.png', fileType: 'image/png' }).expect(400);

      const read = await t.http().get(`/v1/media/upload-sessions/${id}`).set(tenant.auth).expect(200);
      expect(read.body).toMatchObject({ id, status: 'completed', url: null, media: done.body.media });
      const completed = await t.ds.query<{ data: { sessionId: string } }[]>(
        `SELECT data FROM events WHERE profile_id = $1 AND type = 'upload_session.completed'`,
        [tenant.profileId],
      );
      expect(completed.filter((e) => e.data.sessionId === id)).toHaveLength(1);
      expect(
        (
          await t
            .http()
            .get(`${path}?token=${encodeURIComponent(token)}`)
            .expect(200)
        ).text,
      ).toContain('Upload complete');
    });

    it('should show expired sessions as expired, and refuse their page', async () => {
      const { id, url } = (await t.http().post('/v1/media/upload-sessions').set(tenant.auth).send({}).expect(201))
        .body as { id: string; url: string };
      await t.ds.query(`UPDATE media_upload_sessions SET expires_at = now() - interval '1 second' WHERE id = $1`, [id]);
      expect((await t.http().get(`/v1/media/upload-sessions/${id}`).set(tenant.auth).expect(200)).body).toMatchObject({
        status: 'expired',
        url: null,
        media: [],
      });
      const { path, token } = page(url);
      await t
        .http()
        .get(`${path}?token=${encodeURIComponent(token)}`)
        .expect(410);
      await t.http().post(`${path}/files`).send({ token, fileName: 'a.png', fileType: 'image/png' }).expect(400);
    });

    it('should validate the body, and not return a session of another profile', async () => {
      const bad = await t.http().post('/v1/media/upload-sessions').set(tenant.auth).send({ maxFiles: 0 }).expect(400);
      expect(bad.body.error.details.field).toBe('maxFiles');
      await t
        .http()
        .post('/v1/media/upload-sessions')
        .set(tenant.auth)
        .send({ redirectUrl: 'javascript:alert(1)' })
        .expect(400);
      const { id } = (await t.http().post('/v1/media/upload-sessions').set(tenant.auth).send({}).expect(201)).body as {
        id: string;
      };
      const res = await t.http().get(`/v1/media/upload-sessions/${id}`).set(other.auth).expect(404);
      expect(res.body.error.code).toBe('not_found');
      await t.http().get('/v1/media/upload-sessions/not-a-uuid').set(tenant.auth).expect(404);
    });
  });
});
