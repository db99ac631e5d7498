import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer, Reflector } from '@nestjs/core';
import { PERMISSION_KEY, PUBLIC_KEY } from '@/common/auth/decorators';
import type { TestApp } from './test-app';

export interface DiscoveredRoute {
  method: string;
  /** Express-style path: /v1/profiles/:id */
  path: string;
  controller: string;
  handler: string;
  permission?: string;
  isPublic: boolean;
  /** Left out of the OpenAPI document (@ApiExcludeEndpoint / @ApiExcludeController): hosted pages, the sandbox. */
  excludedFromDocs: boolean;
}

const join = (...parts: string[]) =>
  `/${parts
    .map((p) => p.replace(/^\/+|\/+$/g, ''))
    .filter(Boolean)
    .join('/')}`;

/** Every controller route of the running app, with the auth metadata the global guard reads. */
export function discoverRoutes(t: TestApp): DiscoveredRoute[] {
  const reflector = new Reflector();
  const routes: DiscoveredRoute[] = [];
  for (const module of t.app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => unknown) | null;
      if (!controller) continue;
      const classPaths = ([] as string[]).concat(
        (Reflect.getMetadata(PATH_METADATA, controller) as string | string[] | undefined) ?? '',
      );
      const proto = controller.prototype as Record<string, unknown>;
      for (const key of Object.getOwnPropertyNames(proto)) {
        const fn = Object.getOwnPropertyDescriptor(proto, key)?.value as ((...a: unknown[]) => unknown) | undefined;
        if (key === 'constructor' || typeof fn !== 'function') continue;
        const method = Reflect.getMetadata(METHOD_METADATA, fn) as RequestMethod | undefined;
        if (method === undefined) continue;
        const methodPaths = ([] as string[]).concat(
          (Reflect.getMetadata(PATH_METADATA, fn) as string | string[] | undefined) ?? '',
        );
        const permission = reflector.getAllAndOverride<string | undefined>(PERMISSION_KEY, [fn, controller]);
        const isPublic = !!reflector.getAllAndOverride<boolean | undefined>(PUBLIC_KEY, [fn, controller]);
        const excludedFromDocs =
          !!(Reflect.getMetadata('swagger/apiExcludeEndpoint', fn) as { disable?: boolean } | undefined)?.disable ||
          !!(Reflect.getMetadata('swagger/apiExcludeController', controller) as boolean[] | undefined)?.[0];
        for (const cp of classPaths) {
          for (const mp of methodPaths) {
            routes.push({
              method: RequestMethod[method],
              path: join(cp, mp),
              controller: controller.name,
              handler: key,
              permission,
              isPublic,
              excludedFromDocs,
            });
          }
        }
      }
    }
  }
  return routes;
}

/** Routes Express knows about (controllers and anything mounted beside Nest, such as Swagger UI). */
export function expressRoutes(t: TestApp): { method: string; path: string }[] {
  const instance = t.app.getHttpAdapter().getInstance() as {
    router?: { stack: unknown[] };
    _router?: { stack: unknown[] };
  };
  const stack = (instance.router ?? instance._router)?.stack ?? [];
  const out: { method: string; path: string }[] = [];
  for (const layer of stack as {
    route?: { path: string; methods: Record<string, boolean>; stack: { handle: unknown }[] };
  }[]) {
    if (!layer.route) continue;
    // Middleware Nest binds to routes (`consumer.apply(…).forRoutes(…)`) shows up as route layers
    // too; its wrapper remembers handled requests. Those layers run before a controller route.
    if (layer.route.stack.every((s) => String(s.handle).includes('handledRequests'))) continue;
    for (const m of Object.keys(layer.route.methods)) out.push({ method: m.toUpperCase(), path: layer.route.path });
  }
  return out;
}

/** A concrete URL for a route pattern: every `:param` becomes a syntactically valid id. */
export function concretePath(path: string): string {
  return path.replace(/:platform\b/g, 'facebook').replace(/:[A-Za-z_]+/g, '3fa85f64-5717-4562-b3fc-2c963f66afa6');
}
