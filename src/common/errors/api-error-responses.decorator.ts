import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import { ERROR_CATALOGUE, ERROR_CODES, ErrorCode } from './error-catalogue';

/** The error envelope as documented in the OpenAPI document (its code list is the catalogue). */
export class ErrorBody {
  /** Stable identifier; branch on this, never on the message. */
  @ApiProperty({ enum: ERROR_CODES, description: 'Stable identifier; branch on this, never on the message.' })
  code: string;
  @ApiProperty({ description: 'Human-readable text.' })
  message: string;
  @ApiProperty({ description: 'Link to the documentation, anchored at the code.', format: 'uri' })
  docsUrl: string;
  @ApiProperty({ description: 'Echoes the X-Request-Id response header.' })
  requestId: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      'Only on some codes: plan_limit {entitlement, usage, limit}; insufficient_permission {required}; daily_post_limit {limit, used, resetsAt}; invalid_request {field} or {errors}.',
  })
  details?: Record<string, unknown>;
}

export class ErrorEnvelope {
  @ApiProperty({ type: () => ErrorBody })
  error: ErrorBody;
  @ApiProperty({ description: 'Top-level copy of error.message.' })
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
                  error: {
                    code: c,
                    message: ERROR_CATALOGUE[c].message,
                    docsUrl: `https://api.example.com/errors#${c}`,
                    requestId: 'req_3fa85f6457174562',
                  },
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
