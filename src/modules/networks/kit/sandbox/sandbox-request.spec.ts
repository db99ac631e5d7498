import { HttpException } from '@nestjs/common';
import { Readable } from 'node:stream';
import type { Request } from 'express';
import { pageSize, readRawBody } from './sandbox-request';

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

describe('pageSize (a simulator’s limit, count or max_count)', () => {
  it('takes the size asked for, as a string (query) or a number (JSON body)', () => {
    expect(pageSize('7', 25, 100)).toBe(7);
    expect(pageSize(7, 25, 100)).toBe(7);
  });

  it('gives the network’s default when none or no number is asked for', () => {
    for (const asked of [undefined, '', '0', 'many']) expect(pageSize(asked, 25, 100)).toBe(25);
  });

  it('keeps the size between 1 and the network’s maximum', () => {
    expect(pageSize('500', 25, 100)).toBe(100);
    expect(pageSize('-3', 25, 100)).toBe(1);
  });

  it('rounds a fractional size down (a Redis range takes whole numbers: 2.5 was a 500)', () => {
    expect(pageSize('2.5', 25, 100)).toBe(2);
    expect(pageSize(0.5, 25, 100)).toBe(1);
  });
});
