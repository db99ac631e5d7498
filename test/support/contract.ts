/**
 * Contract check: every response the e2e suite receives through `t.http()` is validated against
 * the running app's /openapi.json (Ajv, OpenAPI 3.0 semantics read strictly: see
 * src/bootstrap/openapi-strict.ts). A documented route answering an undocumented status, or a
 * JSON body its schema refuses, fails the request's assertions at the first mismatch.
 */
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Response, Test } from 'supertest';
import { componentsAsJsonSchema, oasToJsonSchema } from '@/bootstrap/openapi-strict';

type Json = Record<string, unknown>;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const REF_BASE = 'openapi';

export interface Contract {
  check(method: string, url: string, res: Response): void;
}

interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  operation: Json;
}

const contracts = new Map<string, Promise<Contract>>();

/** The contract of the app at `baseUrl`, read once per document text. */
export async function loadContract(baseUrl: string): Promise<Contract> {
  const res = await fetch(`${baseUrl}/openapi.json`);
  if (!res.ok) throw new Error(`GET /openapi.json answered ${res.status}`);
  const text = await res.text();
  // Same document modulo this instance's address (servers, links).
  const key = text.split(baseUrl).join('');
  let contract = contracts.get(key);
  if (!contract) {
    contract = Promise.resolve(buildContract(JSON.parse(text) as Json));
    contracts.set(key, contract);
  }
  return contract;
}

function buildContract(document: Json): Contract {
  const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema(componentsAsJsonSchema(document, REF_BASE));
  const routes: Route[] = [];
  for (const [template, item] of Object.entries(document.paths as Record<string, Json>)) {
    const pattern = new RegExp(
      `^${template
        .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
        .replace(/\\?\{[^}]+\\?\}/g, '[^/]+')
        .replace(/\{[^}]+\}/g, '[^/]+')}$`,
    );
    for (const method of METHODS)
      if (item[method]) routes.push({ method, template, pattern, operation: item[method] as Json });
  }
  // Literal segments win over parameters (/v1/posts/validate before /v1/posts/{id}).
  routes.sort((a, b) => b.template.replace(/\{[^}]+\}/g, '').length - a.template.replace(/\{[^}]+\}/g, '').length);
  const validators = new Map<string, ValidateFunction>();

  return {
    check(method, url, res) {
      // 431: Node's HTTP parser refuses oversized headers before any operation runs.
      if (res.status === 431) return;
      const path = new URL(url, 'http://x').pathname;
      const m = method.toLowerCase();
      const route = routes.find((r) => r.method === m && r.pattern.test(path));
      if (!route) {
        // Unknown routes answer 404 (401 first under /v1: the key is checked before routing).
        if (/^\/(v1|health)(\/|$)/.test(path) && ![401, 404, 405].includes(res.status))
          throw new Error(
            `contract: ${method.toUpperCase()} ${path} answered ${res.status} but is not in /openapi.json`,
          );
        return;
      }
      const at = `${method.toUpperCase()} ${route.template} → ${res.status}`;
      // The older error shape on request (Service-Error-Format: legacy, described in the document's intro).
      const legacy = /legacy/i.test(
        String(
          (res as { req?: { getHeader?: (h: string) => string | number | string[] | undefined } }).req?.getHeader?.(
            'service-error-format',
          ) ?? '',
        ),
      );
      if (legacy && res.status >= 400) {
        const b = res.body as { error?: unknown; code?: unknown };
        if (typeof b?.error !== 'string' || typeof b?.code !== 'string')
          throw new Error(`contract: ${at}: a legacy error is { error, code }, got ${JSON.stringify(b).slice(0, 300)}`);
        return;
      }
      const responses = (route.operation.responses ?? {}) as Record<string, Json>;
      const status = String(res.status);
      const spec = responses[status] ?? responses[`${status[0]}XX`] ?? responses.default;
      if (!spec) throw new Error(`contract: ${at} is not a documented status (${Object.keys(responses).join(', ')})`);
      const content = (spec.content ?? {}) as Record<string, Json>;
      const type = (res.type || '').toLowerCase();
      const media = content[type] ?? (type.endsWith('json') ? content['application/json'] : undefined);
      if (!media?.schema) return;
      const key = `${m} ${route.template} ${status} ${type}`;
      let validate = validators.get(key);
      if (!validate) {
        validate = ajv.compile(oasToJsonSchema(media.schema, REF_BASE) as object);
        validators.set(key, validate);
      }
      if (!validate(res.body)) {
        const e = validate.errors?.[0];
        throw new Error(
          `contract: ${at}: body${e?.instancePath ?? ''} ${e?.message ?? 'is invalid'}${e?.params ? ` ${JSON.stringify(e.params)}` : ''}\n${JSON.stringify(res.body).slice(0, 600)}`,
        );
      }
    },
  };
}

/** Adds the contract check as the first assertion of every request made through `agent`. */
export function withContract<T extends object>(agent: T, contract: Contract): T {
  return new Proxy(agent, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof prop !== 'string' || !(METHODS as readonly string[]).includes(prop) || typeof value !== 'function')
        return value;
      return (url: string, ...rest: unknown[]) => {
        const test = (value as (...a: unknown[]) => Test).call(target, url, ...rest);
        return test.expect((res: Response) => contract.check(prop, url, res));
      };
    },
  });
}
