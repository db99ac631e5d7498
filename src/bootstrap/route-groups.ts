import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import express, { type Express, type NextFunction, type Request, type Response, type Router } from 'express';
import { createExpressServer } from './express-server';

/** Registrations a group takes: method routes, and route-bound middleware (Nest registers it the same way). */
const GROUPED = ['get', 'post', 'put', 'patch', 'delete', 'head'] as const;
/** Registrations refused under a group's prefix: a group would change when they run. */
const REFUSED = ['use', 'all', 'options'] as const;

type Method = (typeof GROUPED)[number] | (typeof REFUSED)[number];
type Register = (...args: unknown[]) => unknown;

/**
 * Express tests a request against every layer in front of its route, one regular expression each.
 * A group of routes under a prefix no other route shares (the sandbox simulators' ~150 routes and
 * their route-bound middleware) is registered on one Express router mounted at the prefix instead,
 * where the group's first registration would have gone: a request outside the prefix passes the
 * group with one test; a request inside it meets the same layers in the same order as before
 * (`req.originalUrl` and `req.baseUrl + req.route.path` are unchanged; `req.url` inside the group is
 * relative to it, as under any mount).
 *
 * Only method routes are grouped (GET, POST, PUT, PATCH, DELETE, HEAD): an OPTIONS request skips
 * the group, as it passed these routes on the app (a router of its own would answer it with an
 * `Allow` list instead of letting it reach the 404); a `use`, `all` or OPTIONS registration under
 * a group's prefix is refused at start-up rather than silently reordered.
 */
export class RouteGroupsExpressAdapter extends ExpressAdapter {
  private readonly routers = new Map<string, Router>();
  private readonly register = {} as Record<Method, Register>;

  constructor(private readonly prefixes: readonly string[]) {
    super();
    // Nest registers routes, route-bound middleware and app.use() through these methods of the app.
    const app = this.app as unknown as Record<Method, Register>;
    for (const method of [...GROUPED, ...REFUSED]) {
      const register = (this.register[method] = app[method].bind(app));
      app[method] = (...args: unknown[]) =>
        args.length > 1 && this.grouped(method, args[0], args.slice(1)) ? app : register(...args);
    }
  }

  /**
   * The plain HTTP server builds requests and responses on the app's prototypes
   * (express-server.ts); HTTPS and Nest's shutdown options keep Nest's own server.
   */
  override initHttpServer(options: NestApplicationOptions): void {
    if (options?.httpsOptions || options?.return503OnClosing || options?.forceCloseConnections)
      return super.initHttpServer(options);
    this.setHttpServer(createExpressServer(this.app));
  }

  private get app(): Express {
    return this.getInstance<Express>();
  }

  /** Registers on the group's router (mounted on first use) when `path` is in a group; false otherwise. */
  private grouped(method: Method, path: unknown, handlers: unknown[]): boolean {
    const prefix = typeof path === 'string' ? this.prefixes.find((p) => path === p || path.startsWith(`${p}/`)) : null;
    if (!prefix) return false;
    if (!(GROUPED as readonly string[]).includes(method))
      throw new Error(
        `RouteGroupsExpressAdapter: only method routes can be under ${prefix} (${method} ${String(path)})`,
      );
    let router = this.routers.get(prefix);
    if (!router) {
      const group = express.Router({
        caseSensitive: this.app.enabled('case sensitive routing'),
        strict: this.app.enabled('strict routing'),
      });
      this.register.use(prefix, function routeGroup(req: Request, res: Response, next: NextFunction) {
        if (req.method === 'OPTIONS') next();
        else group(req, res, next);
      });
      this.routers.set(prefix, group);
      router = group;
    }
    (router[method as (typeof GROUPED)[number]] as Register)((path as string).slice(prefix.length) || '/', ...handlers);
    return true;
  }
}
