import { createServer, IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestApp, eventually, type Tenant, type TestApp, type TestAppOptions } from './test-app';

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  /** The exact bytes received, as a string: what signatures are computed over. */
  raw: string;
  body: {
    id: string;
    type: string;
    createdAt: string;
    data: Record<string, unknown>;
  };
  at: number;
}

export type Responder = (req: ReceivedWebhook, res: ServerResponse) => void | Promise<void>;

/**
 * A real HTTP receiver on 127.0.0.1 for webhook tests. Each test uses its own path; a path
 * answers 200 unless a responder is registered for it with `on(path, …)`.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  private readonly responders = new Map<string, Responder>();
  private server!: Server;
  private port = 0;

  static async start(): Promise<WebhookReceiver> {
    const r = new WebhookReceiver();
    r.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const path = (req.url ?? '/').split('?')[0] ?? '/';
        let body: ReceivedWebhook['body'];
        try {
          body = JSON.parse(raw) as ReceivedWebhook['body'];
        } catch {
          body = { id: '', type: '', createdAt: '', data: {} };
        }
        const hit: ReceivedWebhook = {
          path,
          headers: req.headers,
          raw,
          body,
          at: Date.now(),
        };
        r.received.push(hit);
        const responder = r.responders.get(path);
        if (!responder) {
          res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
          return;
        }
        Promise.resolve(responder(hit, res)).catch(() => res.destroy());
      });
    });
    await new Promise<void>((ok) => r.server.listen(0, '127.0.0.1', ok));
    r.port = (r.server.address() as AddressInfo).port;
    return r;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  on(path: string, responder: Responder): void {
    this.responders.set(path, responder);
  }

  at(path: string): ReceivedWebhook[] {
    return this.received.filter((h) => h.path === path);
  }

  /** Waits until `count` requests reached `path` (and returns them). */
  async waitFor(path: string, count = 1, timeoutMs = 45_000): Promise<ReceivedWebhook[]> {
    return eventually(async () => (this.at(path).length >= count ? this.at(path) : undefined), {
      timeoutMs,
      intervalMs: 50,
    });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((ok) => this.server.close(ok));
  }
}

/** A test app and a started receiver: what a webhook spec's `beforeAll` makes. */
export async function startAppAndReceiver(opts?: TestAppOptions): Promise<{ t: TestApp; receiver: WebhookReceiver }> {
  const t = await createTestApp(opts);
  return { t, receiver: await WebhookReceiver.start() };
}

/** Closes the app first (no delivery is left in flight), then the receiver: a webhook spec's `afterAll`. */
export async function closeAppAndReceiver(
  t: TestApp | undefined,
  receiver: WebhookReceiver | undefined,
): Promise<void> {
  await t?.close();
  await receiver?.close();
}

/** Subscribes `url` to `events` for the tenant's profile through the API; its id and `whsec_` secret. */
export async function subscribeWebhook(
  t: TestApp,
  tenant: Tenant,
  url: string,
  events: string[],
): Promise<{ id: string; secret: string }> {
  const res = await t.http().post('/v1/webhooks').set(tenant.auth).send({ url, events }).expect(201);
  return { id: res.body.subscription.id as string, secret: res.body.secret as string };
}
