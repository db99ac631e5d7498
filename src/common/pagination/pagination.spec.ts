import { createValidationPipe } from '../errors/validation';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, PageQueryDto, paged, pageWindow } from './pagination';

describe('pagination', () => {
  it('should default to page 1 of 20', () => {
    expect(pageWindow({})).toEqual({ page: 1, limit: DEFAULT_PAGE_SIZE, offset: 0 });
    expect(DEFAULT_PAGE_SIZE).toBe(20);
  });

  it('should clamp limit to 100 without error', () => {
    expect(MAX_PAGE_SIZE).toBe(100);
    expect(pageWindow({ limit: 1000 })).toEqual({ page: 1, limit: 100, offset: 0 });
    expect(pageWindow({ limit: 101, page: 3 })).toEqual({ page: 3, limit: 100, offset: 200 });
    expect(pageWindow({ limit: 100 }).limit).toBe(100);
    expect(pageWindow({ limit: 7, page: 2 })).toEqual({ page: 2, limit: 7, offset: 7 });
  });

  it('should say whether more items follow', () => {
    expect(paged(pageWindow({ limit: 10 }), 25)).toEqual({ page: 1, limit: 10, total: 25, hasMore: true });
    expect(paged(pageWindow({ limit: 10, page: 3 }), 25)).toEqual({ page: 3, limit: 10, total: 25, hasMore: false });
    expect(paged(pageWindow({ limit: 10, page: 2 }), 20)).toEqual({ page: 2, limit: 10, total: 20, hasMore: false });
    expect(paged(pageWindow({}), 0)).toEqual({ page: 1, limit: 20, total: 0, hasMore: false });
    expect(paged(pageWindow({ page: 9 }), 5).hasMore).toBe(false);
  });

  it('should parse page and limit from the query string and name the field when they are wrong', async () => {
    const pipe = createValidationPipe();
    const meta = { type: 'query' as const, metatype: PageQueryDto };
    expect(await pipe.transform({ page: '2', limit: '1000' }, meta)).toEqual({ page: 2, limit: 1000 });
    await expect(pipe.transform({ limit: '0' }, meta)).rejects.toMatchObject({
      code: 'invalid_request',
      message: 'limit must be at least 1',
      details: { field: 'limit' },
    });
    await expect(pipe.transform({ page: '1.5' }, meta)).rejects.toMatchObject({ message: 'page must be an integer' });
    await expect(pipe.transform({ page: '-1' }, meta)).rejects.toMatchObject({ message: 'page must be at least 1' });
  });
});
