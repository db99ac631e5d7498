import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { ApiError } from './api-error';

export interface FieldProblem {
  field: string;
  message: string;
}

/**
 * The message for one failed property. class-validator lists constraints in reverse order of
 * the decorators, so the last one is the first declared — by convention the type check
 * (`@IsString()` before `@MaxLength()`): "name must be a string", not "name must be shorter…".
 * A value that is absent but validated is a required field.
 */
function describe(e: ValidationError, field: string): string {
  const constraints = e.constraints ?? {};
  if (e.value === undefined && !('whitelistValidation' in constraints)) return `${field} is required`;
  const messages = Object.values(constraints);
  const message = messages[messages.length - 1] ?? `${field} is invalid`;
  // class-validator messages start with the property name; make them name the full path.
  return message.startsWith(`${e.property} `) && field !== e.property
    ? `${field}${message.slice(e.property.length)}`
    : message;
}

/** The first failing field, depth first, with its dotted path (`content.imageUrls.0`). */
export function firstValidationProblem(errors: ValidationError[], prefix = ''): FieldProblem | undefined {
  for (const e of errors) {
    const field = prefix ? `${prefix}.${e.property}` : e.property;
    if (e.constraints && Object.keys(e.constraints).length) return { field, message: describe(e, field) };
    const nested = firstValidationProblem(e.children ?? [], field);
    if (nested) return nested;
  }
  return undefined;
}

/** Maps class-validator errors to 400 invalid_request naming the first bad field. */
export function validationError(errors: ValidationError[]): ApiError<'invalid_request'> {
  const first = firstValidationProblem(errors);
  return new ApiError('invalid_request', first?.message ?? 'The request is invalid.', {
    field: first?.field ?? 'body',
  });
}

/** Bodies must be JSON objects: an array or a scalar would otherwise pass as "no fields set". */
class ServiceValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (
      metadata.type === 'body' &&
      metadata.metatype &&
      this.toValidate(metadata) &&
      value !== undefined &&
      (value === null || typeof value !== 'object' || Array.isArray(value))
    ) {
      throw new ApiError('invalid_request', 'The request body must be a JSON object.', { field: 'body' });
    }
    return super.transform(value, metadata);
  }
}

/** Validation failures become 400 invalid_request naming the first bad field. */
export function createValidationPipe(): ValidationPipe {
  return new ServiceValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    exceptionFactory: validationError,
  });
}
