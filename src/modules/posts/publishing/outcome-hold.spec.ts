import type { PostTargetEntity } from '../entities/post-target.entity';
import { OutcomeHold } from './target-publisher';

const target = (id: string) => ({ id }) as PostTargetEntity;
const success = { status: 'success' as const, externalId: 'x' };

describe('OutcomeHold', () => {
  it('should hand what is held to take once, and write nothing itself', async () => {
    const write = jest.fn(async () => undefined);
    const hold = new OutcomeHold(write, () => undefined);
    hold.hold(target('a'), success);
    hold.hold(target('b'), { status: 'failed', error: 'no' });
    expect((await hold.take()).map(([t, o]) => [t.id, o.status])).toEqual([
      ['a', 'success'],
      ['b', 'failed'],
    ]);
    expect(await hold.take()).toEqual([]);
    await hold.flush();
    expect(write).not.toHaveBeenCalled();
  });

  it('should write what is held in one call on flush, and keep it held when the write fails', async () => {
    const writes: string[][] = [];
    let fail = true;
    const warn = jest.fn();
    const hold = new OutcomeHold(async (held) => {
      if (fail) throw new Error('down');
      writes.push(held.map(([t]) => t.id));
    }, warn);
    hold.hold(target('a'), success);
    await expect(hold.flush()).rejects.toThrow('down');
    expect(warn).toHaveBeenCalledTimes(1);
    hold.hold(target('b'), success);
    fail = false;
    await hold.flush();
    expect(writes).toEqual([['a', 'b']]);
    expect(await hold.take()).toEqual([]);
  });

  it('should let take wait for a write under way, so nothing is written twice', async () => {
    let finishWrite!: () => void;
    const written: string[] = [];
    const hold = new OutcomeHold(
      (held) =>
        new Promise<void>((resolve) => {
          finishWrite = () => {
            written.push(...held.map(([t]) => t.id));
            resolve();
          };
        }),
      () => undefined,
    );
    hold.hold(target('a'), success);
    const flushed = hold.flush();
    const taken = hold.take();
    await Promise.resolve();
    finishWrite();
    await flushed;
    expect(await taken).toEqual([]);
    expect(written).toEqual(['a']);
  });
});
