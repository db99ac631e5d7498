import { PayloadTooLargeException } from '@nestjs/common';
import type { Request } from 'express';

const MAX_UPLOAD_BYTES = 64 * 1024 * 1024;

/** The media bytes of an upload (LinkedIn, YouTube): the app itself parses only JSON and form bodies. */
export async function readRawBody(req: Request, limit = MAX_UPLOAD_BYTES): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer | string>) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += buf.length;
    // A real network refuses an oversized body with 413; a plain Error here would answer 500.
    if (size > limit) throw new PayloadTooLargeException(`Upload larger than ${limit} bytes`);
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

/** A simulator's query or form body: each value a string (absent, or repeated as '' by `qs`). */
export type Q = Record<string, string | undefined>;

/** A Rest.li / query value as a string ('' when absent or repeated). */
export function qs(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** A page size asked for: `fallback` when absent, 0 or not a number, rounded down, at least 1, at most `max`. */
export function pageSize(asked: unknown, fallback: number, max: number): number {
  return Math.min(max, Math.max(1, Math.floor(Number(asked) || fallback)));
}

/** The fields of `all` that a `fields` or `part` query value (comma-separated) names, in its order; null when none. */
export function pickFields(all: Record<string, unknown>, fields: unknown): Record<string, unknown> | null {
  // A repeated query value counts as its values joined, as Nest's String() of a named @Query gives it.
  const list = Array.isArray(fields) ? (fields as string[]).join(',') : typeof fields === 'string' ? fields : '';
  const wanted = list.split(',').filter((f) => f in all);
  return wanted.length ? Object.fromEntries(wanted.map((f) => [f, all[f]])) : null;
}
