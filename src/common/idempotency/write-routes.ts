import type { DynamicModule, ForwardReference, Type } from '@nestjs/common';
import { RequestMethod } from '@nestjs/common';
import { INTERCEPTORS_METADATA, METHOD_METADATA, MODULE_METADATA } from '@nestjs/common/constants';
import { IdempotencyInterceptor } from './idempotency.interceptor';

type ModuleRef = Type | DynamicModule | Promise<DynamicModule> | ForwardReference;
type Handler = (...args: never[]) => unknown;

/** Methods whose requests never carry an effect to replay: the interceptor would pass them through. */
const READS = new Set<RequestMethod>([RequestMethod.GET, RequestMethod.HEAD, RequestMethod.OPTIONS]);

function* controllersOf(ref: ModuleRef, seen: Set<unknown>): Generator<Type> {
  if (!ref || seen.has(ref) || ref instanceof Promise || 'forwardRef' in ref) return;
  seen.add(ref);
  const cls: Type | undefined = 'module' in ref ? ref.module : (ref as Type);
  const dynamic = 'module' in ref ? ref : undefined;
  const metadata = (key: string): unknown[] => (cls ? ((Reflect.getMetadata(key, cls) as unknown[]) ?? []) : []);
  yield* [...metadata(MODULE_METADATA.CONTROLLERS), ...(dynamic?.controllers ?? [])] as Type[];
  for (const child of [...metadata(MODULE_METADATA.IMPORTS), ...(dynamic?.imports ?? [])] as ModuleRef[])
    yield* controllersOf(child, seen);
}

function handlersOf(controller: Type): Handler[] {
  const handlers = new Set<Handler>();
  for (let proto = controller.prototype as object | null; proto && proto !== Object.prototype;) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const value = Object.getOwnPropertyDescriptor(proto, name)?.value as unknown;
      if (name !== 'constructor' && typeof value === 'function') handlers.add(value as Handler);
    }
    proto = Object.getPrototypeOf(proto) as object | null;
  }
  return [...handlers];
}

/**
 * Binds the IdempotencyInterceptor to every route handler that is not a read (GET, HEAD, OPTIONS;
 * `@All()` included), in front of the handler's own interceptors. It only ever acts on writes, so
 * this is what a global interceptor did, without an interceptor chain (rxjs pipeline) on every read.
 * Runs before Nest scans the modules; binding twice (several apps in one process) is a no-op.
 */
export function idempotentWriteRoutes<M extends DynamicModule>(root: M): M {
  for (const controller of controllersOf(root, new Set())) {
    for (const handler of handlersOf(controller)) {
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (method === undefined || READS.has(method)) continue;
      const bound = (Reflect.getMetadata(INTERCEPTORS_METADATA, handler) as unknown[] | undefined) ?? [];
      if (!bound.includes(IdempotencyInterceptor))
        Reflect.defineMetadata(INTERCEPTORS_METADATA, [IdempotencyInterceptor, ...bound], handler);
    }
  }
  return root;
}
