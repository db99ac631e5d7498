/**
 * Fakes `Date` alone at `now`: timers, nextTick, performance and the rest stay real, so servers,
 * drivers and waits in the same process keep working. `jest.setSystemTime` moves it,
 * `jest.useRealTimers` ends it.
 */
export function fakeDateOnly(now: number | Date): void {
  jest.useFakeTimers({
    now,
    doNotFake: [
      'hrtime',
      'nextTick',
      'performance',
      'queueMicrotask',
      'requestAnimationFrame',
      'cancelAnimationFrame',
      'requestIdleCallback',
      'cancelIdleCallback',
      'setImmediate',
      'clearImmediate',
      'setInterval',
      'clearInterval',
      'setTimeout',
      'clearTimeout',
    ],
  });
}
