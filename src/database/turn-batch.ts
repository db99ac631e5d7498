/**
 * Calls made in the same turn of the event loop, run as one: each call adds its item and gets its
 * own result; `run` gets the turn's items once the turn's I/O callbacks have run (setImmediate),
 * and answers a result per item, in order. Several targets of a post reach the same step together
 * (their slots granted by one Redis reply, the network's answers read in one poll), so their
 * statements go to Postgres as one. A `run` that fails rejects every call of its batch.
 */
export function perTurn<T, R>(run: (items: T[]) => Promise<R[]>): (item: T) => Promise<R> {
  let batch: { items: T[]; results: Promise<R[]> } | null = null;
  return (item) => {
    if (!batch) {
      const items: T[] = [];
      const results = new Promise<R[]>((resolve, reject) =>
        setImmediate(() => {
          batch = null;
          run(items).then(resolve, reject);
        }),
      );
      batch = { items, results };
    }
    const index = batch.items.push(item) - 1;
    return batch.results.then((results) => results[index]);
  };
}
