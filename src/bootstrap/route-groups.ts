import { RequestMethod } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import express, { type Express, type Router } from 'express';

/**
 * Express tests a request against every layer in front of its route, one regular expression each.
 * Route groups that no other path shares (the sandbox simulators' ~150 routes and their middleware,
 * the Swagger UI) are each registered on one Express router mounted at their prefix instead, at the
 * place of the group's first registration: a request outside the prefix passes the group with one
 * test; a request inside it meets the same layers in the same order as before (`req.originalUrl`
 * and `req.baseUrl + req.route.path` are unchanged; `req.url` inside the group is relative to it,
 * as under any mount).
 */
export class RouteGroupsExpressAdapter extends ExpressAdapter {
  private readonly routers = new Map<string, Router>();

  constructor(private readonly prefixes: readonly string[]) {
    super();
  }

  private get app(): Express {
    return this.getInstance<Express>();
  }

  /** The group's router (mounted on first use) and the path inside it, or null outside every group. */
  private inGroup(path: unknown): [Router, string] | null {
    if (typeof path !== 'string') return null;
    const prefix = this.prefixes.find((p) => path === p || path.startsWith(`${p}/`));
    if (!prefix) return null;
    let router = this.routers.get(prefix);
    if (!router) {
      router = express.Router({
        caseSensitive: this.app.enabled('case sensitive routing'),
        strict: this.app.enabled('strict routing'),
      });
      this.app.use(prefix, router);
      this.routers.set(prefix, router);
    }
    return [router, path.slice(prefix.length) || '/'];
  }

  private register(method: RouteMethod, args: unknown[]): unknown {
    const grouped = args.length > 1 ? this.inGroup(args[0]) : null;
    if (!grouped) return (this.app[method] as (...a: unknown[]) => unknown)(...args);
    const [router, path] = grouped;
    (router[method] as (...a: unknown[]) => unknown)(path, ...args.slice(1));
    return this.app;
  }

  override use(...args: unknown[]): unknown {
    return this.register('use', args);
  }
  override get(...args: unknown[]): unknown {
    return this.register('get', args);
  }
  override post(...args: unknown[]): unknown {
    return this.register('post', args);
  }
  override put(...args: unknown[]): unknown {
    return this.register('put', args);
  }
  override patch(...args: unknown[]): unknown {
    return this.register('patch', args);
  }
  override delete(...args: unknown[]): unknown {
    return this.register('delete', args);
  }
  override head(...args: unknown[]): unknown {
    return this.register('head', args);
  }
  override options(...args: unknown[]): unknown {
    return this.register('options', args);
  }
  override all(...args: unknown[]): unknown {
    return this.register('all', args);
  }

  /** Route-bound middleware (`forRoutes(Controller)`): on the group's router when its path is in one. */
  override createMiddlewareFactory(requestMethod: RequestMethod): MiddlewareRegistrar {
    const outside = super.createMiddlewareFactory(requestMethod);
    return (path, callback) => {
      const method = MIDDLEWARE_METHODS[requestMethod];
      const grouped = method && !path.endsWith('$') ? this.inGroup(path) : null;
      if (!method || !grouped) return outside(path, callback) as unknown;
      const [router, inner] = grouped;
      return (router[method] as (...a: unknown[]) => unknown)(inner, callback);
    };
  }
}

type MiddlewareRegistrar = ReturnType<ExpressAdapter['createMiddlewareFactory']>;

type RouteMethod = 'use' | 'get' | 'post' | 'put' | 'patch' | 'delete' | 'head' | 'options' | 'all';

/** What ExpressAdapter registers route-bound middleware with, per method (others stay outside groups). */
const MIDDLEWARE_METHODS: Partial<Record<RequestMethod, RouteMethod>> = {
  [RequestMethod.GET]: 'get',
  [RequestMethod.POST]: 'post',
  [RequestMethod.PUT]: 'put',
  [RequestMethod.PATCH]: 'patch',
  [RequestMethod.DELETE]: 'delete',
  [RequestMethod.HEAD]: 'head',
  [RequestMethod.OPTIONS]: 'options',
  [RequestMethod.ALL]: 'all',
};
