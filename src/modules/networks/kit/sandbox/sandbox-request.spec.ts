import { HttpException } from '@nestjs/common';
import { Readable } from 'node:stream';
import type { Request } from 'express';
import { readRawBody } from './sandbox-request';

const body = (...chunks: string[]): Request => Readable.from(chunks.map((c) => Buffer.from(c))) as unknown as Request;

describe('readRawBody (the simulators’ media uploads)', () => {
  it('returns the bytes sent', async () => {
    await expect(readRawBody(body('ab', 'cd'), 10)).resolves.toEqual(Buffer.from('abcd'));
  });

  it('answers 413 for an upload over its limit, not a 500', async () => {
    const err: unknown = await readRawBody(body('abcdef', 'ghijkl'), 10).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpException);
    expect((err as HttpException).getStatus()).toBe(413);
    expect((err as HttpException).message).toMatch(/larger than 10 bytes/);
  });
});
