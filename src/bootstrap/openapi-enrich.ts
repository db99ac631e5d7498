import { RequestMethod, type INestApplication } from '@nestjs/common';
import { HTTP_CODE_METADATA, METHOD_METADATA, REDIRECT_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import { ApiResponse, type OpenAPIObject } from '@nestjs/swagger';
import type { HeaderObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { ERROR_CATALOGUE, ERROR_CODES, type ErrorCode } from '../common/errors/error-catalogue';
import { REQUEST_EXAMPLES } from './openapi-examples';
import { makeNullablesStrict } from './openapi-strict';

/** Keys used by @nestjs/swagger (not exported by the package). */
const API_RESPONSE = 'swagger/apiResponse';
const PLUGIN_METADATA = '_OPENAPI_METADATA_FACTORY';

interface PluginMethodMeta {
  type?: unknown;
  isArray?: boolean;
  status?: number;
  description?: string;
}

type Handler = (...args: unknown[]) => unknown;

/**
 * The swagger plugin documents a handler's success response from its return type, but only when
 * the handler has no @ApiResponse at all — and every authenticated route has its error responses.
 * So the success response is added here, from the same plugin metadata, before the document is built.
 */
export function addSuccessResponses(app: INestApplication): void {
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (Handler & Record<string, unknown>) | null;
      if (!controller || typeof controller !== 'function') continue;
      const factory = controller[PLUGIN_METADATA];
      const pluginMeta = typeof factory === 'function' ? (factory as () => Record<string, PluginMethodMeta>)() : {};
      const proto = controller.prototype as Record<string, unknown>;
      for (const key of Object.getOwnPropertyNames(proto)) {
        const descriptor = Object.getOwnPropertyDescriptor(proto, key);
        const fn = descriptor?.value as Handler | undefined;
        if (key === 'constructor' || typeof fn !== 'function' || Reflect.getMetadata(METHOD_METADATA, fn) === undefined)
          continue;
        if (Reflect.getMetadata(REDIRECT_METADATA, fn)) continue;
        const declared = Object.keys(
          (Reflect.getMetadata(API_RESPONSE, fn) as Record<string, unknown> | undefined) ?? {},
        );
        if (declared.some((s) => /^[23]\d\d$/.test(s))) continue;
        const meta = pluginMeta[key] ?? {};
        const status =
          meta.status ??
          (Reflect.getMetadata(HTTP_CODE_METADATA, fn) as number | undefined) ??
          (Reflect.getMetadata(METHOD_METADATA, fn) === RequestMethod.POST ? 201 : 200);
        const description = meta.description ?? (status === 201 ? 'Created' : status === 204 ? 'No content' : 'OK');
        const options = meta.type
          ? { status, description, type: meta.type as Handler, isArray: meta.isArray }
          : { status, description };
        ApiResponse(options)(proto, key, descriptor!);
      }
    }
  }
}

const WRITE_METHODS = new Set(['post', 'put', 'patch', 'delete']);

const HEADERS = {
  'X-Request-Id': {
    description: 'Identifies this request; error envelopes echo it as error.requestId.',
    schema: { type: 'string' },
  },
  'RateLimit-Limit': { description: 'Requests allowed in the most constrained window.', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Requests left in that window.', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the window frees a request.', schema: { type: 'integer' } },
  'RateLimit-Policy': {
    description: 'The window in force: `<count>;w=<seconds>`.',
    schema: { type: 'string', example: '16;w=60' },
  },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } },
  'Idempotent-Replayed': {
    description: '`true` when this is the stored response of an earlier request with the same Idempotency-Key.',
    schema: { type: 'string', enum: ['true'] },
  },
} as const;

const ref = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });

/** A Markdown table of every error code, from the catalogue. */
export function errorCodesMarkdown(): string {
  const rows = ERROR_CODES.map(
    (c) =>
      `| \`${c}\` | ${ERROR_CATALOGUE[c].status} | ${ERROR_CATALOGUE[c].description} | ${ERROR_CATALOGUE[c].retryable ? 'yes' : 'no'} |`,
  );
  return ['| Code | Status | When | Retry |', '|---|---|---|---|', ...rows].join('\n');
}

/**
 * Completes the generated document: public operations say so (`security: []`), every response
 * documents X-Request-Id, authenticated ones the RateLimit headers, 429 and 409 Retry-After,
 * writes the Idempotency-Key header and the replay marker.
 */
export function finishOpenApiDocument(document: OpenAPIObject, opts: { docsBaseUrl?: string } = {}): OpenAPIObject {
  document.components ??= {};
  makeNullablesStrict(document as unknown as Record<string, unknown>);
  document.components.headers = {
    ...document.components.headers,
    ...(HEADERS as unknown as Record<string, HeaderObject>),
  };
  document.components.parameters = {
    ...document.components.parameters,
    IdempotencyKey: {
      in: 'header',
      name: 'Idempotency-Key',
      required: false,
      description:
        'Makes the write safe to retry: stored 24 hours per API key and route; a repeat returns the stored response (`Idempotent-Replayed: true`); another body with the same key answers 409 `idempotency_key_reused`; a repeat while the first still runs answers 409 `idempotency_key_in_use`.',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    },
  };
  // Operations the service receives none of (x-webhooks: requests it sends) are signed, not keyed.
  for (const item of Object.values(
    (document as { 'x-webhooks'?: Record<string, Record<string, { security?: unknown[] }>> })['x-webhooks'] ?? {},
  )) {
    for (const op of Object.values(item)) if (op && typeof op === 'object' && !op.security) op.security = [];
  }
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(item as Record<string, unknown>)) {
      if (!op || typeof op !== 'object' || !('responses' in op)) continue;
      const operation = op as {
        requestBody?: { content?: Record<string, { example?: unknown }> };
        security?: unknown[];
        parameters?: unknown[];
        responses: Record<string, { headers?: Record<string, unknown> } & Record<string, unknown>>;
      };
      const json = operation.requestBody?.content?.['application/json'];
      const example = REQUEST_EXAMPLES[`${method.toUpperCase()} ${path}`];
      if (json && json.example === undefined && example !== undefined) json.example = example;
      const authenticated = Array.isArray(operation.security) && operation.security.length > 0;
      // Answers any operation can give, whatever its handler: an oversized body, a store that is down.
      const common: ErrorCode[] = [];
      if (operation.requestBody) common.push('payload_too_large');
      if (authenticated) common.push('service_unavailable');
      for (const code of common) {
        const status = String(ERROR_CATALOGUE[code].status);
        operation.responses[status] ??= {
          description: `\`${code}\`: ${ERROR_CATALOGUE[code].description}`,
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/ErrorEnvelope' },
              examples: {
                [code]: {
                  summary: code,
                  value: {
                    error: {
                      code,
                      message: ERROR_CATALOGUE[code].message,
                      docsUrl: `https://api.example.com/errors#${code}`,
                      requestId: 'req_3fa85f6457174562',
                    },
                    message: ERROR_CATALOGUE[code].message,
                  },
                },
              },
            },
          },
        };
      }
      if (!operation.security) operation.security = [];
      const idempotent = authenticated && WRITE_METHODS.has(method);
      if (
        idempotent &&
        !(operation.parameters ?? []).some(
          (p) => (p as { $ref?: string }).$ref === '#/components/parameters/IdempotencyKey',
        )
      ) {
        operation.parameters = [...(operation.parameters ?? []), { $ref: '#/components/parameters/IdempotencyKey' }];
      }
      for (const [status, response] of Object.entries(operation.responses)) {
        if ('$ref' in response) continue;
        const headers: Record<string, unknown> = { ...response.headers, 'X-Request-Id': ref('X-Request-Id') };
        if (authenticated && status !== '401') {
          for (const h of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy'] as const)
            headers[h] = ref(h);
        }
        if (status === '429' || (status === '409' && idempotent)) headers['Retry-After'] = ref('Retry-After');
        if (idempotent && /^2\d\d$/.test(status)) headers['Idempotent-Replayed'] = ref('Idempotent-Replayed');
        response.headers = headers;
        // Error examples link to this deployment's error catalogue, as the answers do.
        if (opts.docsBaseUrl) {
          for (const media of Object.values((response.content ?? {}) as Record<string, { examples?: object }>)) {
            for (const ex of Object.values(
              (media.examples ?? {}) as Record<string, { value?: { error?: Record<string, unknown> } }>,
            )) {
              const error = ex.value?.error;
              if (error && typeof error.code === 'string') error.docsUrl = `${opts.docsBaseUrl}#${error.code}`;
            }
          }
        }
      }
    }
  }
  return document;
}
