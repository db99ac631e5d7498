import { RequestMethod } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import request from 'supertest';
import { RouteGroupsExpressAdapter } from './route-groups';

type Layer = { route?: { path: string }; name: string };

describe('RouteGroupsExpressAdapter', () => {
  function build() {
    const adapter = new RouteGroupsExpressAdapter(['/sandbox']);
    const seen: string[] = [];
    const answer = (name: string) => (req: Request, res: Response) =>
      res.json({ name, url: req.url, originalUrl: req.originalUrl, route: `${req.baseUrl}${req.route?.path}` });
    // As Nest registers them: route-bound middleware first, then the routes.
    adapter.createMiddlewareFactory(RequestMethod.GET)(
      '/sandbox/facebook/me',
      (req: Request, _res: Response, next: NextFunction) => {
        seen.push(`mw ${req.originalUrl}`);
        next();
      },
    );
    adapter.get('/health', answer('health'));
    adapter.post('/sandbox/facebook/:id/feed', answer('feed'));
    adapter.get('/sandbox/facebook/me', answer('me'));
    adapter.get('/v1/profile', answer('profile'));
    adapter.use((_req: Request, res: Response) => res.status(404).json({ name: 'not found' }));
    const app = adapter.getInstance<import('express').Express>();
    return { app, seen, stack: (app as unknown as { router: { stack: Layer[] } }).router.stack };
  }

  it('should put every route and route-bound middleware under the prefix behind one layer, where the first was', () => {
    const { stack } = build();
    const outside = stack.map((l) => l.route?.path ?? l.name);
    expect(outside.slice(-4)).toEqual(['routeGroup', '/health', '/v1/profile', '<anonymous>']);
  });

  it('should route inside and outside the group as before, with the same originalUrl and route template', async () => {
    const { app, seen } = build();
    await request(app).get('/sandbox/facebook/me?x=1').expect(200, {
      name: 'me',
      url: '/facebook/me?x=1',
      originalUrl: '/sandbox/facebook/me?x=1',
      route: '/sandbox/facebook/me',
    });
    expect(seen).toEqual(['mw /sandbox/facebook/me?x=1']);
    await request(app).post('/sandbox/facebook/42/feed').expect(200, {
      name: 'feed',
      url: '/facebook/42/feed',
      originalUrl: '/sandbox/facebook/42/feed',
      route: '/sandbox/facebook/:id/feed',
    });
    await request(app)
      .get('/v1/profile')
      .expect(200, { name: 'profile', url: '/v1/profile', originalUrl: '/v1/profile', route: '/v1/profile' });
  });

  it('should let a request the group does not answer go on to the layers after it', async () => {
    const { app } = build();
    await request(app).get('/sandbox/facebook/unknown').expect(404, { name: 'not found' });
    await request(app).post('/sandbox/facebook/me').expect(404, { name: 'not found' });
    await request(app).get('/sandboxes').expect(404, { name: 'not found' });
    await request(app).get('/health').expect(200);
  });

  it('should leave OPTIONS requests to the layers after the group, as when its routes were on the app', async () => {
    const { app } = build();
    await request(app).options('/sandbox/facebook/me').expect(404, { name: 'not found' });
  });

  it('should refuse middleware, catch-all and OPTIONS routes under a group prefix', () => {
    const adapter = new RouteGroupsExpressAdapter(['/sandbox']);
    const noop = () => undefined;
    expect(() => adapter.use('/sandbox/x', noop)).toThrow(/only method routes/);
    expect(() => adapter.all('/sandbox', noop)).toThrow(/only method routes/);
    expect(() => adapter.options('/sandbox/x', noop)).toThrow(/only method routes/);
    expect(() => adapter.createMiddlewareFactory(RequestMethod.ALL)('/sandbox/x', noop)).toThrow(/only method routes/);
    expect(() => adapter.use('/sandboxes', noop)).not.toThrow();
  });
});
