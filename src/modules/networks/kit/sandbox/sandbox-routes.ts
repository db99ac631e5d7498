import { Get, Header, HttpCode, Inject, Post, Put, Req, Res, type Type } from '@nestjs/common';
import type { Request, Response } from 'express';
import { authenticate, type SandboxAuthSpec } from './sandbox-auth';
import { SandboxController } from './sandbox-http';
import { SandboxOAuth } from './sandbox-oauth';
import type { Q } from './sandbox-request';

/** What a simulator's route handler is given: the request's parts and, behind `auth`, the verified caller. */
interface SandboxCall<C = unknown> {
  caller: C;
  q: Q;
  body: Q;
  params: Record<string, string>;
  headers: Record<string, string | undefined>;
  req: Request;
  /** Only for `raw` routes, whose handler sends the answer itself (otherwise its result is the JSON body). */
  res: Response;
}

type At = `${'GET' | 'POST' | 'PUT'} ${string}`;

/** One route of a simulator, under /sandbox/<network>: `'POST rest/posts'`. */
export interface SandboxRoute<S> {
  at: At;
  auth?: SandboxAuthSpec<unknown>;
  /** The status of the answer: 200 unless said (the networks answer most POSTs with 200). */
  status?: number;
  raw?: boolean;
  /** Headers of the answer, set before the handler runs (as `@Header` sets them). */
  headers?: Record<string, string>;
  handle: (call: SandboxCall, sim: S) => unknown;
}

type RouteAt = At | { at: At; status?: number; raw?: boolean; headers?: Record<string, string> };

/** A route (`at`, or with its status and rawness) whose handler gets the caller `auth` verifies (null: none). */
export function route<S, C = never>(
  at: RouteAt,
  auth: SandboxAuthSpec<C> | null,
  handle: (call: SandboxCall<C>, sim: S) => unknown,
): SandboxRoute<S> {
  const spec = typeof at === 'string' ? { at } : at;
  return { ...spec, auth: auth ?? undefined, handle } as SandboxRoute<S>;
}

/** `route` for one simulator's table, whose handlers are all given its state `S`. */
export const routesOf =
  <S>() =>
  <C = never>(...args: Parameters<typeof route<S, C>>) =>
    route<S, C>(...args);

export const HTML = { 'Content-Type': 'text/html; charset=utf-8' };

const METHODS = { GET: Get, POST: Post, PUT: Put };

/**
 * The controller of a simulator's routes, in their order, each handler given the injected `state`: a route is
 * decorated as `@Post(path) @HttpCode(status) post0(@Req() req, @Res() res)` would be.
 */
export function SimulatorRoutes<S>(name: string, network: string, state: Type<S>, routes: SandboxRoute<S>[]): Type {
  @SandboxController(network)
  class Routes {
    constructor(
      @Inject(state) readonly sim: S,
      readonly oauth: SandboxOAuth,
    ) {}
  }
  const proto = Routes.prototype;
  routes.forEach((r, i) => {
    const [method, path] = r.at.split(' ') as [keyof typeof METHODS, string];
    const key = `${method.toLowerCase()}${i}`;
    const descriptor = {
      value: async function (this: Routes, req: Request, res: Response): Promise<unknown> {
        const caller = r.auth && (await authenticate(r.auth, req, this.oauth));
        const { query: q, params, headers } = req;
        const call = { caller, q, body: req.body as Q, params, headers, req, res } as SandboxCall;
        return r.handle(call, this.sim);
      },
      writable: true,
      configurable: true,
    };
    Object.defineProperty(proto, key, descriptor);
    Req()(proto, key, 0);
    if (r.raw) Res()(proto, key, 1);
    METHODS[method](path)(proto, key, descriptor);
    HttpCode(r.status ?? 200)(proto, key, descriptor);
    for (const [name, value] of Object.entries(r.headers ?? {})) Header(name, value)(proto, key, descriptor);
  });
  Object.defineProperty(Routes, 'name', { value: name });
  return Routes;
}
