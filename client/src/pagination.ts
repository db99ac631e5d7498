/** A page of an offset list (`page`/`limit`): `{ <items>, page, limit, total, hasMore }`. */
export interface OffsetPage {
  page?: number;
  limit?: number;
  total?: number;
  hasMore?: boolean;
}

/** A page of a cursor list: `{ <items>, nextCursor }` (null on the last page). */
export interface CursorPage {
  nextCursor?: string | null;
}

/**
 * Every item of an offset-paginated list, page after page, until `hasMore` is false.
 * `fetchPage(page)` returns one page; `items` picks the array out of it.
 */
export async function* iteratePages<P extends OffsetPage, T>(
  fetchPage: (page: number) => Promise<P>,
  items: (page: P) => T[] | undefined,
  firstPage = 1,
): AsyncGenerator<T, void, undefined> {
  for (let page = firstPage; ; page++) {
    const result = await fetchPage(page);
    const list = items(result) ?? [];
    yield* list;
    const more =
      result.hasMore ??
      (result.total !== undefined && result.limit !== undefined ? page * result.limit < result.total : false);
    if (!more || list.length === 0) return;
  }
}

/** Every item of a cursor-paginated list, following `nextCursor` until it is null. */
export async function* iterateCursor<P extends CursorPage, T>(
  fetchPage: (cursor: string | undefined) => Promise<P>,
  items: (page: P) => T[] | undefined,
  firstCursor?: string,
): AsyncGenerator<T, void, undefined> {
  let cursor = firstCursor;
  for (;;) {
    const result = await fetchPage(cursor);
    yield* items(result) ?? [];
    if (!result.nextCursor || result.nextCursor === cursor) return;
    cursor = result.nextCursor;
  }
}

/** Collects an async iterable (e.g. `await collect(sps.events.iterate())`), optionally stopping after `max` items. */
export async function collect<T>(iterable: AsyncIterable<T>, max = Infinity): Promise<T[]> {
  const out: T[] = [];
  if (max <= 0) return out;
  for await (const item of iterable) {
    out.push(item);
    if (out.length >= max) break;
  }
  return out;
}
