import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min, MinLength, ValidateNested, validate } from 'class-validator';
import { plainToInstance } from 'class-transformer';
import { ApiError } from './api-error';
import { createValidationPipe, firstValidationProblem, validationError } from './validation';

class Inner {
  @IsString()
  @MaxLength(5)
  title: string;
}

class Sample {
  @IsString()
  @MinLength(1)
  @MaxLength(10)
  name: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  count?: number;

  @IsOptional()
  @ValidateNested()
  @Type(() => Inner)
  inner?: Inner;
}

async function problemFor(body: Record<string, unknown>) {
  return firstValidationProblem(
    await validate(plainToInstance(Sample, body), { whitelist: true, forbidNonWhitelisted: true }),
  );
}

describe('validation messages', () => {
  it('should name a missing required field', async () => {
    expect(await problemFor({})).toEqual({ field: 'name', message: 'name is required' });
  });

  it('should report the type check first declared, not a later length rule', async () => {
    expect(await problemFor({ name: 42 })).toEqual({ field: 'name', message: 'name must be a string' });
    expect(await problemFor({ name: 'ok', count: 'x' })).toEqual({
      field: 'count',
      message: 'count must be an integer number',
    });
  });

  it('should report range rules when the type is right', async () => {
    expect((await problemFor({ name: 'much too long a name' }))?.message).toBe(
      'name must be shorter than or equal to 10 characters',
    );
    expect((await problemFor({ name: 'ok', count: 500 }))?.message).toBe('count must not be greater than 100');
  });

  it('should give nested fields their dotted path', async () => {
    expect(await problemFor({ name: 'ok', inner: { title: 'far too long' } })).toEqual({
      field: 'inner.title',
      message: 'inner.title must be shorter than or equal to 5 characters',
    });
    expect(await problemFor({ name: 'ok', inner: {} })).toEqual({
      field: 'inner.title',
      message: 'inner.title is required',
    });
  });

  it('should name an unknown property', async () => {
    expect(await problemFor({ name: 'ok', colour: 'red' })).toEqual({
      field: 'colour',
      message: 'property colour should not exist',
    });
  });

  it('should build a 400 invalid_request with details.field', async () => {
    const err = validationError(await validate(plainToInstance(Sample, {})));
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(400);
    expect(err.code).toBe('invalid_request');
    expect(err.details).toEqual({ field: 'name' });
  });
});

describe('createValidationPipe', () => {
  const pipe = createValidationPipe();
  const body = { type: 'body' as const, metatype: Sample };

  const rejection = async (value: unknown, meta = body): Promise<ApiError> => {
    try {
      await pipe.transform(value, meta);
    } catch (e) {
      return e as ApiError;
    }
    throw new Error('expected a rejection');
  };

  it('should refuse bodies that are not JSON objects', async () => {
    for (const value of [[], [{ name: 'a' }], 'text', 42, null]) {
      const e = await rejection(value);
      expect(e.code).toBe('invalid_request');
      expect(e.message).toBe('The request body must be a JSON object.');
    }
  });

  it('should treat an absent body as an empty object (the first required field is named)', async () => {
    expect((await rejection(undefined)).message).toBe('name is required');
  });

  it('should transform a valid body into the DTO and strip nothing it declares', async () => {
    const out = (await pipe.transform({ name: 'ok', count: 3 }, body)) as Sample;
    expect(out).toBeInstanceOf(Sample);
    expect(out).toEqual({ name: 'ok', count: 3 });
  });

  it('should validate query DTOs with the same messages', async () => {
    const e = await rejection({ count: 'abc', name: 'x' }, { type: 'query' as never, metatype: Sample });
    expect(e.message).toBe('count must be an integer number');
    expect(e.details).toEqual({ field: 'count' });
  });
});
