import { ValidationError, ValidationPipe } from '@nestjs/common';
import { ApiError } from './api-error';

function firstError(errors: ValidationError[], prefix = ''): { field: string; message: string } | undefined {
  for (const e of errors) {
    const field = prefix ? `${prefix}.${e.property}` : e.property;
    if (e.constraints) {
      const message = Object.values(e.constraints)[0] ?? `${field} is invalid`;
      return { field, message };
    }
    const nested = firstError(e.children ?? [], field);
    if (nested) return nested;
  }
  return undefined;
}

/** Validation failures become 400 invalid_request naming the first bad field. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    exceptionFactory: (errors) => {
      const first = firstError(errors);
      const field = first?.field ?? 'body';
      const message = first?.message ?? 'The request is invalid.';
      // class-validator messages start with the property name; make them name the full path.
      const leaf = field.split('.').pop() ?? field;
      const text = message.startsWith(leaf) && field !== leaf ? `${field}${message.slice(leaf.length)}` : message;
      return new ApiError('invalid_request', text, { field });
    },
  });
}
