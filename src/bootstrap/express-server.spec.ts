import { IncomingMessage, type Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express, Request, Response } from 'express';
import { RouteGroupsExpressAdapter } from './route-groups';

describe('the HTTP server of RouteGroupsExpressAdapter', () => {
  async function serve() {
    const adapter = new RouteGroupsExpressAdapter(['/sandbox']);
    adapter.initHttpServer({});
    const app = adapter.getInstance<Express>();
    const server = adapter.getHttpServer() as Server;
    // Seen before Express's app.handle runs: the objects as the server built them.
    const built: { req: object; res: object; requestProto: unknown; responseProto: unknown }[] = [];
    server.prependListener('request', (req: object, res: object) =>
      built.push({ req, res, requestProto: Object.getPrototypeOf(req), responseProto: Object.getPrototypeOf(res) }),
    );
    adapter.get('/v1/profile', (req: Request, res: Response) => {
      res.json({
        sameRequest: req === built[0]?.req,
        requestProto: Object.getPrototypeOf(req) === app.request,
        responseProto: Object.getPrototypeOf(res) === app.response,
        isIncomingMessage: req instanceof IncomingMessage,
        isServerResponse: res instanceof ServerResponse,
        constructors: [req.constructor.name, res.constructor.name],
        ip: typeof req.ip,
        path: req.path,
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return { app, server, built, url: `http://127.0.0.1:${port}` };
  }

  it("should build each request and response on the Express app's prototypes, so Express does not change them per request", async () => {
    const { app, server, built, url } = await serve();
    try {
      const body = (await (await fetch(`${url}/v1/profile?x=1`)).json()) as Record<string, unknown>;
      expect(built[0].requestProto).toBe(app.request);
      expect(built[0].responseProto).toBe(app.response);
      // What a handler sees is what Express's own prototype change gave before: the same chain.
      expect(body).toEqual({
        sameRequest: true,
        requestProto: true,
        responseProto: true,
        isIncomingMessage: true,
        isServerResponse: true,
        constructors: ['IncomingMessage', 'ServerResponse'],
        ip: 'string',
        path: '/v1/profile',
      });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
