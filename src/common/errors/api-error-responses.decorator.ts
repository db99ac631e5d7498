import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { ERROR_CATALOGUE, ErrorCode } from './error-catalogue';

/** The error envelope as documented in the OpenAPI document. */
export class ErrorBody {
  /** Stable identifier; branch on this, never on the message. */
  code: string;
  /** Human-readable text. */
  message: string;
  /** Link to the documentation, anchored at the code. */
  docsUrl: string;
  /** Echoes the X-Request-Id response header. */
  requestId: string;
  /** Only on some codes (plan_limit, insufficient_permission, daily_post_limit, invalid_request). */
  details?: Record<string, unknown>;
}

export class ErrorEnvelope {
  error: ErrorBody;
  /** Top-level copy of error.message. */
  message: string;
}

/** Documents the given error codes, grouped by HTTP status, each with an example envelope. */
export function ApiErrorResponses(...codes: ErrorCode[]): MethodDecorator & ClassDecorator {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = ERROR_CATALOGUE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const decorators = [...byStatus.entries()].map(([status, group]) =>
    ApiResponse({
      status,
      description: group.map((c) => `\`${c}\`: ${ERROR_CATALOGUE[c].description}`).join(' | '),
      content: {
        'application/json': {
          schema: { $ref: getSchemaPath(ErrorEnvelope) },
          examples: Object.fromEntries(
            group.map((c) => [
              c,
              {
                summary: c,
                value: {
                  error: { code: c, message: ERROR_CATALOGUE[c].message, docsUrl: `https://docs.example.com/errors#${c}`, requestId: 'req_3fa85f6457174562' },
                  message: ERROR_CATALOGUE[c].message,
                },
              },
            ]),
          ),
        },
      },
    }),
  );
  return applyDecorators(ApiExtraModels(ErrorEnvelope, ErrorBody), ...decorators);
}
