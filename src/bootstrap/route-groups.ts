import { RequestMethod } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import express, { type Express, type NextFunction, type Request, type Response, type Router } from 'express';

/** The methods a group takes routes and route-bound middleware for. */
type GroupMethod = 'get' | 'post' | 'put' | 'patch' | 'delete' | 'head';

const GROUP_METHODS: Partial<Record<RequestMethod, GroupMethod>> = {
  [RequestMethod.GET]: 'get',
  [RequestMethod.POST]: 'post',
  [RequestMethod.PUT]: 'put',
  [RequestMethod.PATCH]: 'patch',
  [RequestMethod.DELETE]: 'delete',
  [RequestMethod.HEAD]: 'head',
};

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
 * `Allow` list instead of letting it reach the 404); anything else registered under a group's
 * prefix (a `use`, `all` or OPTIONS route) is refused at start-up rather than silently reordered.
 */
export class RouteGroupsExpressAdapter extends ExpressAdapter {
  private readonly routers = new Map<string, Router>();

  constructor(private readonly prefixes: readonly string[]) {
    super();
  }

  private get app(): Express {
    return this.getInstance<Express>();
  }

  private prefixOf(path: unknown): string | undefined {
    if (typeof path !== 'string') return undefined;
    return this.prefixes.find((p) => path === p || path.startsWith(`${p}/`));
  }

  /** Registers on the group's router (mounted on first use) when `path` is in a group; false otherwise. */
  private grouped(method: GroupMethod | undefined, path: unknown, handlers: unknown[]): boolean {
    const prefix = this.prefixOf(path);
    if (prefix === undefined) return false;
    if (!method)
      throw new Error(`RouteGroupsExpressAdapter: only method routes can be under ${prefix} (${String(path)})`);
    let router = this.routers.get(prefix);
    if (!router) {
      const group = express.Router({
        caseSensitive: this.app.enabled('case sensitive routing'),
        strict: this.app.enabled('strict routing'),
      });
      this.app.use(prefix, function routeGroup(req: Request, res: Response, next: NextFunction) {
        if (req.method === 'OPTIONS') next();
        else group(req, res, next);
      });
      this.routers.set(prefix, group);
      router = group;
    }
    (router[method] as (...a: unknown[]) => unknown)((path as string).slice(prefix.length) || '/', ...handlers);
    return true;
  }

  private route(method: GroupMethod, args: unknown[]): unknown {
    if (args.length > 1 && this.grouped(method, args[0], args.slice(1))) return this.app;
    return (this.app[method] as (...a: unknown[]) => unknown)(...args);
  }

  private other(method: 'use' | 'all' | 'options', args: unknown[]): unknown {
    if (args.length > 1) this.grouped(undefined, args[0], []);
    return (this.app[method] as (...a: unknown[]) => unknown)(...args);
  }

  override get(...args: unknown[]): unknown {
    return this.route('get', args);
  }
  override post(...args: unknown[]): unknown {
    return this.route('post', args);
  }
  override put(...args: unknown[]): unknown {
    return this.route('put', args);
  }
  override patch(...args: unknown[]): unknown {
    return this.route('patch', args);
  }
  override delete(...args: unknown[]): unknown {
    return this.route('delete', args);
  }
  override head(...args: unknown[]): unknown {
    return this.route('head', args);
  }
  override use(...args: unknown[]): unknown {
    return this.other('use', args);
  }
  override all(...args: unknown[]): unknown {
    return this.other('all', args);
  }
  override options(...args: unknown[]): unknown {
    return this.other('options', args);
  }

  /** Route-bound middleware (`forRoutes(Controller)`): on the group's router when its path is in one. */
  override createMiddlewareFactory(
    requestMethod: RequestMethod,
  ): ReturnType<ExpressAdapter['createMiddlewareFactory']> {
    const outside = super.createMiddlewareFactory(requestMethod);
    return (path, callback) => {
      const method = path.endsWith('$') ? undefined : GROUP_METHODS[requestMethod];
      return this.grouped(method, path, [callback]) ? this.app : (outside(path, callback) as unknown);
    };
  }
}
