import type { OpenAPIObject } from '@nestjs/swagger';
import { ERROR_CODES } from '../common/errors/error-catalogue';
import { errorCodesMarkdown, finishOpenApiDocument } from './openapi-enrich';

const doc = (): OpenAPIObject => ({
  openapi: '3.0.0',
  info: { title: 't', version: '1' },
  paths: {
    '/health': { get: { responses: { '200': { description: 'OK' } } } },
    '/v1/things': {
      get: {
        security: [{ bearer: [] }],
        responses: {
          '200': { description: 'OK' },
          '401': { description: 'no' },
          '429': { description: 'slow down' },
        },
      },
      post: {
        security: [{ bearer: [] }],
        responses: { '201': { description: 'Created' }, '409': { description: 'conflict' } },
      },
    },
  },
});

describe('finishOpenApiDocument', () => {
  const out = finishOpenApiDocument(doc()) as unknown as {
    paths: Record<
      string,
      Record<
        string,
        { security: unknown[]; parameters?: unknown[]; responses: Record<string, { headers: Record<string, unknown> }> }
      >
    >;
    components: { headers: Record<string, unknown> };
  };

  it('should mark operations without security as public', () => {
    expect(out.paths['/health'].get.security).toEqual([]);
    expect(out.paths['/v1/things'].get.security).toEqual([{ bearer: [] }]);
  });

  it('should document X-Request-Id everywhere and the RateLimit headers on authenticated answers after authentication', () => {
    expect(Object.keys(out.paths['/health'].get.responses['200'].headers)).toEqual(['X-Request-Id']);
    expect(Object.keys(out.paths['/v1/things'].get.responses['200'].headers)).toEqual([
      'X-Request-Id',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'RateLimit-Policy',
    ]);
    expect(Object.keys(out.paths['/v1/things'].get.responses['401'].headers)).toEqual(['X-Request-Id']);
    expect(out.paths['/v1/things'].get.responses['429'].headers).toHaveProperty('Retry-After');
    expect(out.components.headers).toHaveProperty('RateLimit-Policy');
  });

  it('should give authenticated writes the Idempotency-Key parameter, the replay header and Retry-After on 409', () => {
    const post = out.paths['/v1/things'].post;
    expect(post.parameters).toEqual([{ $ref: '#/components/parameters/IdempotencyKey' }]);
    expect(post.responses['201'].headers).toHaveProperty('Idempotent-Replayed');
    expect(post.responses['409'].headers).toHaveProperty('Retry-After');
    expect(out.paths['/v1/things'].get.parameters).toBeUndefined();
  });

  it('should be idempotent', () => {
    const twice = finishOpenApiDocument(finishOpenApiDocument(doc())) as unknown as typeof out;
    expect(twice.paths['/v1/things'].post.parameters).toHaveLength(1);
  });
});

describe('errorCodesMarkdown', () => {
  it('should list every catalogue code with its status', () => {
    const md = errorCodesMarkdown();
    for (const code of ERROR_CODES) expect(md).toContain(`\`${code}\``);
    expect(md).toContain('| `rate_limit_exceeded` | 429 |');
  });
});
