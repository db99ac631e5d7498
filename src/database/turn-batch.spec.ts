import { perTurn } from './turn-batch';

describe('perTurn', () => {
  it('runs the calls of one turn as one batch, each call getting its own result', async () => {
    const batches: number[][] = [];
    const double = perTurn(async (items: number[]) => {
      batches.push(items);
      return items.map((n) => n * 2);
    });
    const first = await Promise.all([double(1), double(2), double(3)]);
    const later = await double(4);
    expect(first).toEqual([2, 4, 6]);
    expect(later).toBe(8);
    expect(batches).toEqual([[1, 2, 3], [4]]);
  });

  it('takes the calls made by callbacks of the same loop phase into one batch', async () => {
    const batches: string[][] = [];
    const echo = perTurn(async (items: string[]) => (batches.push(items), items));
    // Three callbacks of one check phase (as the answers of three sockets are callbacks of one poll phase):
    // immediates queued together run in the same iteration, and the batch's own immediate, queued from
    // the first of them, runs in the next one. (Timers would not do: each setTimeout reads the clock,
    // so three of them can fall due in different iterations.)
    const answers = await new Promise<Promise<string>[]>((resolve) => {
      const calls: Promise<string>[] = [];
      setImmediate(() => calls.push(echo('a')));
      setImmediate(() => calls.push(echo('b')));
      setImmediate(() => (calls.push(echo('c')), resolve(calls)));
    });
    expect(await Promise.all(answers)).toEqual(['a', 'b', 'c']);
    expect(batches).toEqual([['a', 'b', 'c']]);
  });

  it('rejects every call of a batch whose run fails, and the next turn starts afresh', async () => {
    let fail = true;
    const run = perTurn(async (items: number[]) => {
      if (fail) throw new Error('refused');
      return items;
    });
    const results = await Promise.allSettled([run(1), run(2)]);
    expect(results.map((r) => r.status === 'rejected' && (r.reason as Error).message)).toEqual(['refused', 'refused']);
    fail = false;
    expect(await run(3)).toBe(3);
  });
});
