import type { NextFunction, Response } from 'express';
import { ApiError } from '../errors/api-error';
import type { ServiceRequest } from './request-context';

const MAX_DEPTH = 64;

/** The path of the first string (value or key) holding a NUL character, or null. */
function findNul(value: unknown, path: string, depth = 0): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path || 'body' : null;
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return null;
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  for (const [key, v] of entries) {
    const at = Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
    if (key.includes('\u0000')) return at;
    const found = findNul(v, at, depth + 1);
    if (found) return found;
  }
  return null;
}

/**
 * One rule for NUL characters (`\u0000`), which Postgres cannot store in text or jsonb: a request
 * whose parsed body or query holds one anywhere gets 400 invalid_request naming the field.
 */
export function rejectNulCharacters(req: ServiceRequest, _res: Response, next: NextFunction): void {
  const field = findNul(req.query, '') ?? findNul(req.body, '');
  if (field) {
    next(ApiError.invalid(field, `${field} must not contain NUL characters (\\u0000).`));
    return;
  }
  next();
}
