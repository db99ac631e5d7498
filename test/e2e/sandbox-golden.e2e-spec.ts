import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Dispatcher, fetch as undiciFetch, getGlobalDispatcher, setGlobalDispatcher } from 'undici';
import type { AccountCredentials, PlatformAdapter, PublishContent } from '@/modules/networks/kit/adapter';
import { PlatformRegistry } from '@/modules/networks/network-registry';
import type { PlatformName } from '@/modules/networks/platform-name';
import { dispatchedHeaders, dispatchedUrl } from '@test/support/doc-fetch';
import { fakeDateOnly } from '@test/support/fake-date';
import { SANDBOX_REDIRECT_URI } from '@test/support/sandbox-connect';
import { createTestApp, type TestApp } from '@test/support/test-app';

/**
 * The simulators' golden transcript: every HTTP exchange with /sandbox/… that the adapter-driven
 * sandbox specs make (OAuth authorize, consent, token, refresh; text, photo, video, container,
 * carousel and status publish flows; uploads; insights and analytics; comments; magic words;
 * token and media failures; over-limit answers) is recorded as method, URL, request body, status,
 * telling headers and response body, and compared with `sandbox-golden.json`. Randomness and the
 * clock are made deterministic for the network code, so ids, tokens, timestamps and generated
 * metrics are compared exactly.
 *
 * The transcript is never re-recorded or edited (this spec only compares). When it differs, the
 * failure lists `missing` (recorded exchanges no longer made, or answered otherwise) and `extra`
 * (exchanges made or answered that were not recorded): the change under test altered what an
 * adapter sends or a simulator answers. Find that change and undo it, or make it keep every
 * exchange as recorded; a wanted new behaviour is pinned by its own spec, not by adding flows here.
 */

const GOLDEN = join(__dirname, 'sandbox-golden.json');

// Seeded randomBytes/randomInt for the network code and the test flows (the rest of the app keeps real randomness).
jest.mock('node:crypto', () => mockSeededCrypto(jest.requireActual('node:crypto')));
jest.mock('crypto', () => mockSeededCrypto(jest.requireActual('crypto')));

function mockSeededCrypto(actual: typeof import('node:crypto')): typeof import('node:crypto') {
  let counter = 0;
  const seeded = (): boolean => {
    const caller = new Error().stack?.split('\n')[3] ?? '';
    return /src\/modules\/networks\/|test\/support\/sandbox-connect|test\/e2e\/sandbox-/.test(caller);
  };
  const bytes = (n: number): Buffer => {
    const out: Buffer[] = [];
    for (let len = 0; len < n; len += 32) out.push(actual.createHash('sha256').update(`golden-${counter++}`).digest());
    return Buffer.concat(out).subarray(0, n);
  };
  return {
    ...actual,
    randomBytes: ((n: number) => (seeded() ? bytes(n) : actual.randomBytes(n))) as typeof actual.randomBytes,
    randomInt: ((a: number, b?: number) => {
      if (!seeded()) return b === undefined ? actual.randomInt(a) : actual.randomInt(a, b);
      const [min, max] = b === undefined ? [0, a] : [a, b];
      return min + (bytes(4).readUInt32BE(0) % (max - min));
    }) as typeof actual.randomInt,
  };
}

// A fixed clock (only Date is faked) that moves one second per sandbox request.
fakeDateOnly(new Date('2026-05-12T12:00:00Z'));

interface Exchange {
  request: string;
  body?: unknown;
  status: number;
  headers: Record<string, string>;
  response: unknown;
}

const transcript: Exchange[] = [];
const BASE = /http:\/\/127\.0\.0\.1:\d+|http%3A%2F%2F127\.0\.0\.1%3A\d+/g;
const TELLING_HEADERS = ['location', 'content-type', 'retry-after', 'x-business-use-case-usage', 'www-authenticate'];
const norm = (s: string): string => s.replace(BASE, '<base>');
const digest = (b: Uint8Array): string =>
  `<${b.byteLength} bytes ${createHash('sha256').update(b).digest('hex').slice(0, 16)}>`;

function bodyOf(text: string, type: string): unknown {
  if (type.includes('json') || /^[[{]/.test(text)) {
    try {
      return JSON.parse(norm(text)) as unknown;
    } catch {
      return norm(text);
    }
  }
  return norm(text);
}

/** A request body as sent: undici.request's string or bytes as given; a fetch's stream by its content type. */
function requestBody(body: unknown, streamed: Buffer[], contentType: string): unknown {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return bodyOf(body, '');
  if (body instanceof Uint8Array) return digest(body);
  const bytes = Buffer.concat(streamed);
  return /json|form-urlencoded|text/.test(contentType) ? bodyOf(bytes.toString('utf8'), '') : digest(bytes);
}

/** A stream body passed on unchanged, its chunks kept in `into`. */
async function* keeping(body: AsyncIterable<Uint8Array | string>, into: Buffer[]): AsyncGenerator<Uint8Array | string> {
  for await (const chunk of body) {
    into.push(Buffer.from(chunk));
    yield chunk;
  }
}

/**
 * The recorder, on undici's global dispatcher: each exchange with /sandbox/… (the adapters' undici.request and the
 * script's fetch, undici's here so that it shares that dispatcher) moves the clock one second before it is sent and
 * is recorded when its answer has been read.
 */
const recordExchange: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (opts, handler) => {
  const url = dispatchedUrl(opts);
  if (!/^http:\/\/127\.0\.0\.1:\d+\/sandbox\//.test(url)) return dispatch(opts, handler);
  jest.setSystemTime(Date.now() + 1000);
  const streamed: Buffer[] = [];
  const given = opts.body;
  const isStream = given != null && typeof given !== 'string' && !(given instanceof Uint8Array);
  const body = isStream ? keeping(given as AsyncIterable<Uint8Array | string>, streamed) : given;
  const chunks: Buffer[] = [];
  let status = 0;
  let headers: Record<string, string | string[] | undefined> = {};
  const header = (h: string): string | undefined => {
    const v = headers[h];
    return v === undefined ? undefined : Array.isArray(v) ? v.join(', ') : v;
  };
  return dispatch(
    { ...opts, body: body as Dispatcher.DispatchOptions['body'] },
    {
      onRequestStart: (controller, context) => handler.onRequestStart?.(controller, context),
      onRequestUpgrade: (controller, code, h, socket) => handler.onRequestUpgrade?.(controller, code, h, socket),
      onResponseStart: (controller, statusCode, h, message) => {
        [status, headers] = [statusCode, h];
        handler.onResponseStart?.(controller, statusCode, h, message);
      },
      onResponseData: (controller, chunk) => {
        chunks.push(chunk);
        handler.onResponseData?.(controller, chunk);
      },
      onResponseEnd: (controller, trailers) => {
        const type = header('content-type') ?? '';
        const raw = Buffer.concat(chunks);
        const textual = /json|text|html|xml/.test(type) || raw.byteLength === 0;
        const sent = requestBody(given, streamed, dispatchedHeaders(opts)['content-type'] ?? '');
        transcript.push({
          request: `${opts.method} ${norm(url)}`,
          ...(sent !== undefined ? { body: sent } : {}),
          status,
          headers: Object.fromEntries(
            TELLING_HEADERS.filter((h) => header(h) !== undefined).map((h) => [h, norm(header(h) ?? '')]),
          ),
          response: textual ? bodyOf(raw.toString('utf8'), type) : digest(raw),
        });
        handler.onResponseEnd?.(controller, trailers);
      },
      onResponseError: (controller, err) => handler.onResponseError?.(controller, err),
    },
  );
};

setGlobalDispatcher(getGlobalDispatcher().compose(recordExchange));
// The script's own requests (consent pages, control calls) on the same dispatcher: Node's fetch uses its own.
globalThis.fetch = undiciFetch as unknown as typeof fetch;

describe('sandbox golden transcript', () => {
  // The adapter-driven sandbox specs are the script: required here, their tests run inside this file's recorder.
  /* eslint-disable @typescript-eslint/no-require-imports */
  describe('Meta networks', () => {
    require('./sandbox-meta.e2e-spec');
  });
  describe('LinkedIn, TikTok, YouTube', () => {
    require('./sandbox-lty.e2e-spec');
  });
  /* eslint-enable @typescript-eslint/no-require-imports */

  describe('consent page, first comments and caps', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({
        env: {
          SANDBOX_AUTO_CONSENT: 'false',
          NETWORK_CAPS:
            'instagram.posts_per_24h=1,linkedin.posts_per_day=1,threads.posts_per_24h=1,tiktok.posts_per_day=1,youtube.uploads_per_day=1',
        },
      });
    });
    afterAll(async () => t.close());
    const adapter = (p: PlatformName): PlatformAdapter => t.app.get(PlatformRegistry).get(p);
    const settle = (p: Promise<unknown>): Promise<unknown> =>
      p.then(
        (r) => r,
        (e: unknown) => e,
      );

    /** The consent page, then Allow (or Cancel) posted as its form does; the code exchanged. */
    async function connect(p: PlatformName, decision = 'allow'): Promise<AccountCredentials | null> {
      const challenge = createHash('sha256').update('golden-verifier').digest('base64url');
      const url = adapter(p).authorizeUrl({
        state: `st-${p}`,
        redirectUri: SANDBOX_REDIRECT_URI,
        codeChallenge: challenge,
      });
      const page = await fetch(url, { redirect: 'manual' });
      const consent = /name="consent" value="([^"]+)"/.exec(await page.text())![1];
      const res = await fetch(`${t.url}/sandbox/_control/consent`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ consent, decision }).toString(),
      });
      const code = new URL(res.headers.get('location') ?? '').searchParams.get('code');
      if (!code) return null;
      const tokens = await adapter(p).exchangeCode({
        code,
        redirectUri: SANDBOX_REDIRECT_URI,
        codeVerifier: 'golden-verifier',
      });
      const [a] = await adapter(p).listAccounts(tokens);
      return {
        platformAccountId: a.platformAccountId,
        accessToken: a.tokens?.accessToken ?? tokens.accessToken,
        metadata: a.metadata ?? {},
      };
    }

    const contentOf = (p: PlatformName, text: string): PublishContent => {
      const media = `${t.url}/sandbox/_control/media/`;
      const base: PublishContent = {
        contentType: 'text',
        text,
        link: null,
        imageUrls: [],
        videoUrl: null,
        options: {},
      };
      if (p === 'instagram') return { ...base, contentType: 'image', imageUrls: [`${media}image.jpg`] };
      if (p === 'tiktok' || p === 'youtube')
        return { ...base, contentType: 'video', videoUrl: `${media}video.mp4`, options: { title: text } };
      return base;
    };

    it('should refuse a cancelled consent', async () => {
      expect(await connect('linkedin', 'deny')).toBeNull();
    });

    it.each(['facebook', 'instagram', 'threads', 'linkedin', 'tiktok', 'youtube'] as PlatformName[])(
      'should take %s first comments and refuse a post over the cap',
      async (p) => {
        const account = (await connect(p))!;
        const send = (text: string) =>
          adapter(p).publish({ account, content: contentOf(p, text), publishState: {}, saveState: async () => {} });
        const post = await send(`Golden ${p}`);
        for (const text of ['First!', 'No #sandbox-comment-fails', ''])
          if (adapter(p).postComment)
            await settle(adapter(p).postComment!({ account, externalId: post.externalId, text }));
        await settle(adapter(p).listComments(account, post.externalId));
        if (adapter(p).publishingUsage) await settle(adapter(p).publishingUsage!(account));
        const over = await settle(send(`Golden ${p} again`));
        if (p !== 'facebook') expect(over).toMatchObject({ category: 'network_rate_limited' });
      },
    );
  });

  it('should answer every recorded request as the golden transcript does', () => {
    expect(existsSync(GOLDEN)).toBe(true);
    const golden = JSON.parse(readFileSync(GOLDEN, 'utf8')) as Exchange[];
    // Compared as a multiset: an adapter sends some calls concurrently (LinkedIn's analytics), in no fixed order.
    // Keys in a stable order: a client may list a body's fields in another order without changing the request.
    const canonical = (e: unknown): string =>
      JSON.stringify(e, (_k, v: unknown) =>
        v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort()) : v,
      );
    const extra = transcript.map(canonical);
    const missing: unknown[] = [];
    for (const e of golden) {
      const i = extra.indexOf(canonical(e));
      if (i >= 0) extra.splice(i, 1);
      else missing.push(e);
    }
    expect({ missing, extra: extra.map((e) => JSON.parse(e) as unknown) }).toEqual({ missing: [], extra: [] });
  });
});
